import { Strategy as CustomStrategy } from 'passport-custom';

/**
 * passport-local's `Strategy`, to the letter of its options and its verify callback
 * (`verify(username, password, done)`), on passport-custom, which passwordless-selfhost already
 * depends on, so that the example runs without another package. In your app it is
 * `import { Strategy as LocalStrategy } from 'passport-local'`: nothing else changes.
 */
export class LocalStrategy extends CustomStrategy {
  constructor(options, verify) {
    const { usernameField = 'username', passwordField = 'password' } = options ?? {};
    super((req, done) => {
      const username = req.body?.[usernameField];
      const password = req.body?.[passwordField];
      if (typeof username !== 'string' || typeof password !== 'string' || !username || !password) {
        done(null, false, { message: 'Missing credentials' });
        return;
      }
      verify(username, password, done);
    });
    this.name = 'local';
  }
}
