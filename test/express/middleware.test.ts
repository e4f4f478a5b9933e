/**
 * The Express middleware in a host app (express-session + Passport), against a real service
 * process (`node dist/cli.js serve`). The browser's part of each ceremony is played by the
 * software authenticator talking to the service, as the browser client would.
 */
import supertest from 'supertest';
import { InMemoryUserStore, type PasswordlessOptions, type UserStore } from '../../src/express';
import { TokenService } from '../../src/server/services/tokens/tokenService';
import { openStore, TokenKeyRepository } from '../../src/server/store';
import { finishRegistration, signIn } from '../support/ceremonies';
import { expectProblem, hostApp as hostOn, newEmail, sessionCookie, signUp as signUpOn, startSignUp as startSignUpOn, type Host } from '../support/hostApp';
import { bareVerifyPayload } from '../support/privateApi';
import { freeLoopbackPort } from '../support/net';
import { startServiceProcess, type ServiceProcess } from '../support/serviceProcess';
import type { TestApp } from '../support/testService';

jest.setTimeout(60_000);

let service: ServiceProcess & { database: { url: string } };
let app: TestApp;

beforeAll(async () => {
  service = await startServiceProcess();
  app = await service.createApp();
});
afterAll(() => service?.stop());

const hostApp = (options: Partial<PasswordlessOptions> = {}, users?: UserStore) => hostOn(service, app, options, users);
/** The ceremony of a sign-up, not yet signed in. */
const startSignUp = (h: Host, email?: string, extra?: Record<string, unknown>) => startSignUpOn(service, app, h, email, extra);
/** A whole sign-up, ending signed in. */
const signUp = (h: Host, email?: string, extra?: Record<string, unknown>) => signUpOn(service, app, h, email, extra);
const json = { 'Content-Type': 'application/json' };

describe('sign-up, sign-in, sessions', () => {
  let h: Host;
  beforeEach(() => {
    h = hostApp();
  });
  afterEach(() => {
    for (const body of h.bodies) expect(body).not.toContain(app.apiSecret);
  });

  it('signs up: a registration token first, the local user only once the passkey signs in, then a session', async () => {
    const { email, verifyToken } = await startSignUp(h);
    expect((h.users as InMemoryUserStore).size).toBe(0);

    const login = await h.agent.post('/passwordless-login').send({ token: verifyToken });
    expect(login.status).toBe(200);
    expect(login.body).toEqual({ id: expect.any(String), email, username: email.split('@')[0], displayName: 'Test User' });
    expect((h.users as InMemoryUserStore).size).toBe(1);
    expect(sessionCookie(login)).toBeDefined();

    const me = await h.agent.get('/me');
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ id: login.body.id, email });
  });

  it('registers with the default Register settings under a random userId that becomes the user id, and the email becomes an alias once the user exists', async () => {
    const before = Date.now();
    const { email, credential, options, registerToken, verifyToken } = await startSignUp(h);
    expect(options).toMatchObject({
      user: { name: email.split('@')[0], displayName: 'Test User' },
      attestation: 'none',
      authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
    });
    expect(options.authenticatorSelection.authenticatorAttachment).toBeUndefined();
    // Register__Expiration (default two minutes) from now; the token payload is signed, not secret.
    const payload = JSON.parse(Buffer.from(registerToken.slice('register_'.length).split('.')[0], 'base64url').toString());
    expect(payload.exp).toBeGreaterThanOrEqual(before + 120_000);
    expect(payload.exp).toBeLessThanOrEqual(Date.now() + 120_000);
    expect(payload.aliasHashing).toBe(true);
    // No alias rides in the registration token: a sign-up that never completes binds no address.
    expect(payload.aliases).toEqual([]);
    const userId = Buffer.from(options.user.id, 'base64url').toString();
    expect(userId).toMatch(/^[0-9a-f-]{36}$/);
    expect(await h.auth.client.listAliases(userId)).toEqual([]);

    const login = await h.agent.post('/passwordless-login').send({ token: verifyToken });
    expect(login.body.id).toBe(userId);
    expect(await h.auth.client.listAliases(userId)).toHaveLength(1);
    const signin = await signIn(service, app, credential, { alias: email });
    expect(signin.complete.status).toBe(200);
    const again = await supertest(h.host).post('/passwordless-login').send({ token: signin.complete.body.token });
    expect(again.body.email).toBe(email);
    expect(await h.auth.client.listCredentials(userId)).toHaveLength(1);
  });

  it('sends configured Register settings in the form the service expects', async () => {
    const custom = hostApp({
      env: {
        Passwordless__Register__UserVerification: 'Required',
        Passwordless__Register__Discoverable: 'False',
        Passwordless__Register__AuthenticationType: 'Platform',
        Passwordless__Register__Expiration: '00:10:00',
        Passwordless__Register__AliasHashing: 'false',
      },
    });
    const before = Date.now();
    const res = await custom.agent.post('/passwordless-register').send({ email: newEmail(), username: 'configured' });
    expect(res.status).toBe(200);
    const begin = await service.http.post('/register/begin').set('ApiKey', app.apiKey).send({ token: res.body.token, RPID: 'app.example.com', Origin: 'https://app.example.com' });
    expect(begin.body.data.authenticatorSelection).toEqual({ authenticatorAttachment: 'platform', residentKey: 'discouraged', requireResidentKey: false, userVerification: 'required' });
    const payload = JSON.parse(Buffer.from(res.body.token.slice('register_'.length).split('.')[0], 'base64url').toString());
    expect(payload.exp).toBeGreaterThanOrEqual(before + 600_000);
    expect(payload.aliasHashing).toBe(false);
  });

  it('gives the session a new id at login, so an id fixed before sign-in is worthless', async () => {
    const before = sessionCookie(await h.agent.post('/touch'));
    expect(before).toBeDefined();
    const { verifyToken } = await startSignUp(h);
    const login = await h.agent.post('/passwordless-login').send({ token: verifyToken });
    const after = sessionCookie(login);
    expect(after).toBeDefined();
    expect(after).not.toBe(before);
    // The pre-login cookie does not carry the sign-in.
    expectProblem(await supertest(h.host).get('/me').set('Cookie', before!), 401, 'not_signed_in');
    expect((await supertest(h.host).get('/me').set('Cookie', after!)).status).toBe(200);
  });

  it('signs out: 204, the session is gone and its cookie no longer signs in', async () => {
    const { login } = await signUp(h);
    const cookie = sessionCookie(login)!;
    const logout = await h.agent.post('/passwordless-logout').set(json);
    expect(logout.status).toBe(204);
    expectProblem(await h.agent.get('/me'), 401, 'not_signed_in');
    expectProblem(await supertest(h.host).get('/me').set('Cookie', cookie), 401, 'not_signed_in');
    // Signing out when not signed in is fine too.
    expect((await supertest(h.host).post('/passwordless-logout').set(json)).status).toBe(204);
  });

  it('signs in again with a passkey sign-in (by alias and discoverably)', async () => {
    const { email, credential } = await signUp(h);
    for (const options of [{ alias: email }, {}]) {
      const signin = await signIn(service, app, credential, options);
      expect(signin.complete.status).toBe(200);
      const login = await supertest.agent(h.host).post('/passwordless-login').send({ token: signin.complete.body.token });
      expect(login.status).toBe(200);
      expect(login.body.email).toBe(email);
    }
  });

  it('adds a second passkey for the signed-in user, keeping the email alias; its registration token does not sign in', async () => {
    const { email, credential, user } = await signUp(h);
    const add = await h.agent.post('/passwordless-add-credential').send({ displayName: 'Work laptop' });
    expect(add.status).toBe(200);
    expect(add.body.token).toMatch(/^register_/);
    const second = await finishRegistration(service, app, add.body.token);
    expect(second.complete.status).toBe(200);
    expect(await h.auth.client.listCredentials(user.id)).toHaveLength(2);
    // Both passkeys still sign in by the email alias.
    for (const c of [credential, second.credential]) expect((await signIn(service, app, c, { alias: email })).complete.status).toBe(200);
    expectProblem(await supertest(h.host).post('/passwordless-login').send({ token: second.complete.body.token }), 401, 'token_not_accepted');
  });

  it('refuses to add a passkey for nobody: 401', async () => {
    expectProblem(await supertest(h.host).post('/passwordless-add-credential').send({}), 401, 'not_signed_in');
  });

  it('works with passport.authenticate(scheme) in a host route of its own', async () => {
    const { verifyToken } = await startSignUp(h);
    const own = await h.agent.post('/own-login').send({ token: verifyToken });
    expect(own.status).toBe(200);
    expect(typeof own.body.signedInAs).toBe('string');
    expect((await h.agent.get('/me')).status).toBe(200);
    // Passport answers any failure of a host's own route with 401.
    expect((await supertest(h.host).post('/own-login').send({ token: verifyToken })).status).toBe(401);
  });
});

describe('tokens the service refuses reach the caller as the service answered them', () => {
  let h: Host;
  beforeAll(() => {
    h = hostApp();
  });

  it('a token of another app: 400 invalid_token, the service problem unchanged', async () => {
    const other = await service.createApp();
    const { token } = (await service.http.post('/signin/generate-token').set('ApiSecret', other.apiSecret).send({ userId: 'someone' })).body;
    const direct = await service.http.post('/signin/verify').set('ApiSecret', app.apiSecret).send({ token });
    const login = await h.agent.post('/passwordless-login').send({ token });
    expectProblem(login, 400, 'invalid_token');
    expect({ ...login.body, traceId: undefined }).toEqual({ ...direct.body, traceId: undefined });
    expectProblem(await h.agent.get('/me'), 401, 'not_signed_in');
  });

  it('an expired token: 403 expired_token', async () => {
    // Signed with the app's own keys (the service's database), with an expiry in the past.
    const store = openStore(service.database.url);
    try {
      await service.http.post('/signin/generate-token').set('ApiSecret', app.apiSecret).send({ userId: 'warm-up' });
      const payload = bareVerifyPayload(app.appId, 'passkey_signin', 'anyone', Date.now() - 600_000);
      const token = await new TokenService({ tokenKeys: new TokenKeyRepository({ db: store.db }) }).issue('verify', payload);
      const login = await h.agent.post('/passwordless-login').send({ token });
      expectProblem(login, 403, 'expired_token');
      expect(login.body.title).toMatch(/expired .* ago/);
    } finally {
      await store.close();
    }
  });

  it('a token used twice: the second login gets 400 token_already_used', async () => {
    const { credential } = await signUp(h);
    const { token } = (await signIn(service, app, credential)).complete.body;
    expect((await supertest(h.host).post('/passwordless-login').send({ token })).status).toBe(200);
    expectProblem(await supertest(h.host).post('/passwordless-login').send({ token }), 400, 'token_already_used');
  });

  it('no token, or a registration token: 400 without asking the service', async () => {
    expectProblem(await h.agent.post('/passwordless-login').send({}), 400, 'missing_token');
    expectProblem(await h.agent.post('/passwordless-login').send({ token: 'register_abc' }), 400, 'invalid_token');
  });

  it('a valid token of a user the host does not know: 401 unknown_user', async () => {
    const ghost = await finishRegistration(service, app, (await service.http.post('/register/token').set('ApiSecret', app.apiSecret).send({ userId: 'ghost', username: 'ghost' })).body.token);
    const signin = await signIn(service, app, ghost.credential, { userId: 'ghost' });
    expectProblem(await h.agent.post('/passwordless-login').send({ token: signin.complete.body.token }), 401, 'unknown_user');
  });

  it('a token that is not a passkey sign-in (generated): 401 token_not_accepted', async () => {
    const { user } = await signUp(h);
    const { token } = (await service.http.post('/signin/generate-token').set('ApiSecret', app.apiSecret).send({ userId: user.id })).body;
    expectProblem(await supertest(h.host).post('/passwordless-login').send({ token }), 401, 'token_not_accepted');
  });

  it('with signInAfterRegister off, the registration token does not sign in', async () => {
    const strict = hostApp({ signInAfterRegister: false });
    const { verifyToken } = await startSignUp(strict);
    expectProblem(await strict.agent.post('/passwordless-login').send({ token: verifyToken }), 401, 'token_not_accepted');
    expect((strict.users as InMemoryUserStore).size).toBe(0);
  });
});

describe('sign-up input and failures leave no half-created user', () => {
  it('refuses bad input with a 400 problem naming the field', async () => {
    const h = hostApp({ allowVisitorAliases: true, throttle: { signUp: 100 } });
    const cases: [Record<string, unknown>, string][] = [
      [{ username: 'a' }, 'email'],
      [{ email: 'not-an-address', username: 'a' }, 'email'],
      [{ email: newEmail() }, 'username'],
      [{ email: newEmail(), username: 'a', aliases: Array.from({ length: 11 }, (_, i) => `alias${i}`) }, 'aliases'],
      [{ email: newEmail(), username: 'a', aliases: 'alias' }, 'aliases'],
      [{ email: newEmail(), username: 'a', aliases: Array.from({ length: 10 }, (_, i) => `alias${i}`) }, 'aliases'],
    ];
    for (const [body, field] of cases) {
      const res = await h.agent.post('/passwordless-register').send(body);
      expectProblem(res, 400, 'validation_failed');
      expect(Object.keys(res.body.errors)).toContain(field);
    }
    expect((h.users as InMemoryUserStore).size).toBe(0);
  });

  it('removes the new user and its passkey when the email alias is another user\'s at the service: 409 alias_conflict', async () => {
    const h = hostApp();
    const taken = `taken-${Date.now()}@example.com`;
    expect((await service.http.post('/alias').set('ApiSecret', app.apiSecret).send({ userId: 'owner', aliases: [taken] })).status).toBe(204);
    const { verifyToken, options } = await startSignUp(h, taken);
    expectProblem(await h.agent.post('/passwordless-login').send({ token: verifyToken }), 409, 'alias_conflict');
    expect((h.users as InMemoryUserStore).size).toBe(0);
    expect(await h.auth.client.listCredentials(Buffer.from(options.user.id, 'base64url').toString())).toEqual([]);
    expectProblem(await h.agent.get('/me'), 401, 'not_signed_in');
  });

  it('writes nothing when the service cannot be reached: 502 service_unreachable', async () => {
    const closedPort = await freeLoopbackPort();
    const h = hostApp({ apiUrl: `http://127.0.0.1:${closedPort}`, logger: { error: () => undefined } });
    expectProblem(await h.agent.post('/passwordless-register').send({ email: newEmail(), username: 'offline' }), 502, 'service_unreachable');
    expect((h.users as InMemoryUserStore).size).toBe(0);
  });

  it('does not let a visitor see that the site itself is misconfigured (wrong ApiSecret): 502, logged without the secret', async () => {
    const logged: string[] = [];
    const wrongSecret = `${app.appId}:secret:${'0'.repeat(32)}`;
    const h = hostApp({ apiSecret: wrongSecret, logger: { error: (details, message) => logged.push(`${message} ${JSON.stringify(details)}`) } });
    expectProblem(await h.agent.post('/passwordless-register').send({ email: newEmail(), username: 'x' }), 502, 'service_misconfigured');
    expect((h.users as InMemoryUserStore).size).toBe(0);
    expect(logged.length).toBeGreaterThan(0);
    for (const line of logged) expect(line).not.toContain(wrongSecret);
  });
});

describe('request hygiene', () => {
  it('refuses requests another site made (Sec-Fetch-Site: cross-site) and bodies that are not JSON', async () => {
    const h = hostApp();
    expectProblem(await h.agent.post('/passwordless-logout').set(json).set('Sec-Fetch-Site', 'cross-site'), 403, 'cross_site_request');
    expect((await h.agent.post('/passwordless-logout').set(json).set('Sec-Fetch-Site', 'same-origin')).status).toBe(204);
    expectProblem(await h.agent.post('/passwordless-register').type('form').send('email=a@example.com&username=a'), 415, 'unsupported_media_type');
    expectProblem(await h.agent.post('/passwordless-login').set('Content-Type', 'application/json').send('{"token":'), 400, 'validation_failed');
  });

  it('mounts the routes at configured paths, leaves out a path set to null, and exposes the browser config only when asked', async () => {
    const h = hostApp({ paths: { login: '/auth/login', register: null }, exposeConfig: true, publicApiUrl: 'https://passkeys.example.com/' });
    expect((await h.agent.post('/passwordless-register').send({ email: newEmail(), username: 'x' })).status).toBe(404);
    expectProblem(await h.agent.post('/auth/login').send({}), 400, 'missing_token');
    const config = await h.agent.get('/passwordless-config');
    expect(config.status).toBe(200);
    expect(config.body).toMatchObject({ apiUrl: 'https://passkeys.example.com', apiKey: app.apiKey, autofillRestartSeconds: 50 });
    // What the browser module needs to find the routes: those mounted, where they are.
    expect(config.body.paths).toMatchObject({ login: '/auth/login', passkeys: '/passwordless-passkeys' });
    expect(config.body.paths).not.toHaveProperty('register');
    expect(config.body.paths).not.toHaveProperty('recover');
    expect((await hostApp().agent.get('/passwordless-config')).status).toBe(404);
  });

  it('serves the passkey endpoints and the related origins where configured, and nothing there otherwise', async () => {
    const h = hostApp({ passkeyEndpoints: { enroll: '/account/passkeys/new', manage: 'https://id.example.com/passkeys' }, relatedOrigins: ['https://shop.example.co.uk'] });
    const endpoints = await supertest(h.host).get('/.well-known/passkey-endpoints');
    expect(endpoints.status).toBe(200);
    // On the configured origin (ORIGIN), whatever the request's Host: see forgedHost.test.ts.
    expect(endpoints.body).toEqual({ enroll: 'https://app.example.com/account/passkeys/new', manage: 'https://id.example.com/passkeys' });
    expect((await supertest(h.host).get('/.well-known/webauthn')).body).toEqual({ origins: ['https://shop.example.co.uk'] });
    const plain = hostApp();
    expect((await supertest(plain.host).get('/.well-known/passkey-endpoints')).status).toBe(404);
    expect((await supertest(plain.host).get('/.well-known/webauthn')).status).toBe(404);
    expect(() => hostApp({ relatedOrigins: ['http://insecure.example.com'] })).toThrow(/relatedOrigins/);
  });
});

