// A password app that moves its users to passkeys: an ordinary Express app with passport-local,
// its users (seeded on the first run) with scrypt password hashes and its sessions in SQLite, to
// which passwordless-selfhost/express adds passkeys. After a password sign-in the page gets the
// user a passkey (silently where the browser can, else with one click); next time the email field
// offers it (autofill); the password keeps working.
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import express from 'express';
import { rateLimit } from 'express-rate-limit';
import session from 'express-session';
import passport from 'passport';
import { passwordless } from 'passwordless-selfhost/express';
import { SqliteSessionStore } from '../shared/sqliteSessionStore.mjs';
import { Strategy as LocalStrategy } from 'passport-local';
import { verifyPassword } from './passwords.mjs';
import { PasswordUserStore } from './passwordUserStore.mjs';

const here = dirname(fileURLToPath(import.meta.url));

/** The users a first run creates: a demo's, so their passwords are printed and in the README. */
export const DEMO_USERS = [
  { email: 'ada@example.com', displayName: 'Ada Lovelace', password: 'analytical-engine-1843' },
  { email: 'grace@example.com', displayName: 'Grace Hopper', password: 'compiler-a0-1952' },
];

/** A session secret kept with the host's data, made once. */
function sessionSecret(dataDir) {
  if (process.env.SESSION_SECRET) return process.env.SESSION_SECRET;
  const file = join(dataDir, 'session-secret');
  if (!existsSync(file)) writeFileSync(file, randomBytes(32).toString('hex'), { mode: 0o600 });
  return readFileSync(file, 'utf8');
}

const publicFields = ({ id, email, username, displayName }) => ({ id, email, username, displayName });

/** An application/problem+json answer, in the shape the passkey routes answer with. */
function problem(res, status, errorCode, title) {
  const body = { type: `https://docs.passwordless.dev/guide/errors.html#${errorCode}`, title, status, errorCode };
  res.status(status).set('Content-Type', 'application/problem+json').end(JSON.stringify(body));
}

/**
 * The password sign-in only takes JSON from this site's own pages: a form on another site cannot
 * post it (no CORS is granted), and a browser names the site a request comes from.
 */
function ownPagesOnly(req, res, next) {
  if (req.headers['sec-fetch-site'] === 'cross-site' || req.headers['sec-fetch-site'] === 'same-site') problem(res, 403, 'cross_site_request', 'Requests from other sites are not accepted.');
  else if (!req.is('application/json')) problem(res, 415, 'unsupported_media_type', 'Send the sign-in as application/json.');
  else next();
}

/**
 * Builds the host. Settings for the passkey middleware come from the Passwordless__* environment
 * keys (ApiKey, ApiSecret, ApiUrl, Origins); `publicUrl` is where browsers open this host (the
 * origin passkey sign-ins must come from; else Passwordless__Origins); `publicApiUrl` is the
 * service's address as browsers reach it. `passwordAttempts` caps password sign-ins per client
 * address and minute (default 10); `throttle` overrides the passkey routes' limits (tests).
 * Seeds `seedUsers` into an empty user table (the demo users, except in production: their
 * passwords are public); answers `{app, seeded, close()}`.
 */
export async function createHost({ dataDir, publicUrl, publicApiUrl, seedUsers = process.env.NODE_ENV === 'production' ? [] : DEMO_USERS, passwordAttempts = 10, throttle }) {
  // Users and sessions are for this host's user only, whatever the umask.
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  closeSync(openSync(join(dataDir, 'host.db'), 'a', 0o600));
  const db = new Database(join(dataDir, 'host.db'));
  db.pragma('journal_mode = WAL');
  const users = new PasswordUserStore(db);
  const seeded = await users.seed(seedUsers);
  const sessions = new SqliteSessionStore(db);

  // The app as it was: passport-local checks the password against the user's hash.
  passport.use(
    new LocalStrategy({ usernameField: 'email' }, (email, password, done) => {
      const check = async () => {
        const found = await users.findWithPasswordHash(email.trim());
        return (await verifyPassword(password, found?.passwordHash)) ? found.user : false;
      };
      check().then((user) => done(null, user), done);
    }),
  );

  const app = express();
  app.disable('x-powered-by');
  app.use(
    session({
      store: sessions,
      secret: sessionSecret(dataDir),
      resave: false,
      saveUninitialized: false,
      cookie: { httpOnly: true, sameSite: 'lax', secure: process.env.NODE_ENV === 'production', maxAge: 7 * 24 * 3600 * 1000 },
    }),
  );
  app.use(passport.initialize());
  app.use(passport.session());

  // The passkeys: sign-up stays the app's own (none here), so its routes are off; the rest is the
  // middleware's (sign-in, the passkey list, adding a passkey, sign-out, the browser module).
  const auth = passwordless({
    users,
    publicUrl,
    exposeConfig: true,
    publicApiUrl,
    serveBrowserModule: true,
    paths: { register: null, verifyEmail: null },
    // The session list reads (and ends) sessions in this store.
    sessionStore: sessions,
    autofillRestartSeconds: process.env.AUTOFILL_RESTART_SECONDS ? Number(process.env.AUTOFILL_RESTART_SECONDS) : undefined,
    // How old a passkey must be to confirm a step-up (default an hour); a demo or a test may say 0.
    newPasskeyStepUpDelaySeconds: process.env.NEW_PASSKEY_STEP_UP_DELAY_SECONDS ? Number(process.env.NEW_PASSKEY_STEP_UP_DELAY_SECONDS) : undefined,
    throttle,
  });
  app.use(auth);

  // A password costs the server 0.3 s of CPU and 128 MiB: a client address gets a few a minute.
  const passwordLimit = rateLimit({
    windowMs: 60_000,
    limit: passwordAttempts,
    standardHeaders: 'draft-8',
    legacyHeaders: false,
    handler: (_req, res) => problem(res, 429, 'too_many_requests', 'Too many sign-in attempts: wait a minute.'),
  });
  app.post('/login', ownPagesOnly, passwordLimit, express.json({ limit: '4kb' }), (req, res, next) => {
    passport.authenticate('local', (error, user) => {
      if (error) return next(error);
      // The same answer for an unknown address and a wrong password (each took one scrypt).
      if (!user) return problem(res, 401, 'invalid_credentials', 'The email address or the password is not right.');
      req.logIn(user, (loginError) => {
        if (loginError) return next(loginError);
        // The one line a password app adds for the passkey upgrade: this session was opened by a
        // password, just now, so the page may make the user a passkey (once); and the session list
        // shows it from now on.
        auth.notePasswordSignIn(req);
        res.set('Cache-Control', 'no-store').json(publicFields(user));
      });
    })(req, res, next);
  });

  app.get('/api/me', auth.requireUser, (req, res) => {
    res.set('Cache-Control', 'no-store').json(publicFields(req.user));
  });
  app.use(auth.handleErrors);
  app.use(express.static(join(here, 'public')));

  return {
    app,
    seeded,
    close() {
      sessions.close();
      db.close();
    },
  };
}
