// The example host app: an ordinary Express app with its own users and sessions, that lets its
// users sign up and sign in with passkeys through passwordless-selfhost/express.
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import express from 'express';
import session from 'express-session';
import passport from 'passport';
import { passwordless } from 'passwordless-selfhost/express';
import { fileMailer, passkeyMails } from './hostMail.mjs';
import { mailboxRoute } from './mailbox.mjs';
import { SqliteSessionStore } from '../shared/sqliteSessionStore.mjs';
import { metricsRoute } from './metricsRoute.mjs';
import { SqliteUserStore } from './sqliteUserStore.mjs';

const here = dirname(fileURLToPath(import.meta.url));

/** A session secret kept with the host's data, made once. */
function sessionSecret(dataDir) {
  if (process.env.SESSION_SECRET) return process.env.SESSION_SECRET;
  const file = join(dataDir, 'session-secret');
  if (!existsSync(file)) writeFileSync(file, randomBytes(32).toString('hex'), { mode: 0o600 });
  return readFileSync(file, 'utf8');
}

/** Logs once a mail is refused, or when the day's sign-up and recovery mails pass 80 % of the budget. */
function warnWhenMailRunsLow({ day, kind, allowed }) {
  if (!allowed) console.warn(`passwordless: a ${kind} mail was refused: the host's mail budget is spent (${day.sent}/${day.limit} today).`);
  else if (day.sent >= Math.ceil(day.limit * 0.8)) console.warn(`passwordless: ${day.sent} of today's ${day.limit} sign-up and recovery mails are spent.`);
}

const publicFields = ({ id, email, username, displayName }) => ({ id, email, username, displayName });

/**
 * Builds the host app. Settings for the middleware come from the Passwordless__* environment keys
 * (ApiKey, ApiSecret, ApiUrl, Origins...); `publicUrl` is where browsers open this host (its
 * links and the origin sign-ins must come from; else Passwordless__Origins); `publicApiUrl` is the
 * service's address as browsers reach it; `mailFile` is the service's MAIL_FILE, shown at
 * /dev/mailbox outside production beside the host's own mail; `throttle` and `mailBudget` override
 * the middleware's limits (tests that sign up many times); `metricsToken` (HOST_METRICS_TOKEN)
 * serves the middleware's metrics at GET /metrics to whoever sends it as a Bearer token.
 */
export function createHost({ dataDir, publicUrl, publicApiUrl, mailFile, throttle, mailBudget, metricsToken = process.env.HOST_METRICS_TOKEN }) {
  // Users and sessions are for this host's user only, whatever the umask: the directory 0700, the
  // database 0600 (SQLite gives its WAL and shared-memory files the database's mode).
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  closeSync(openSync(join(dataDir, 'host.db'), 'a', 0o600));
  const db = new Database(join(dataDir, 'host.db'));
  db.pragma('journal_mode = WAL');
  const users = new SqliteUserStore(db);
  const sessions = new SqliteSessionStore(db);

  const app = express();
  app.disable('x-powered-by');
  app.use(
    session({
      store: sessions,
      secret: sessionSecret(dataDir),
      resave: false,
      saveUninitialized: false,
      // Not readable by scripts, not sent with other sites' requests, and only over HTTPS in
      // production (behind a proxy, set app.set('trust proxy', 1) so that Express knows it is HTTPS).
      cookie: { httpOnly: true, sameSite: 'lax', secure: process.env.NODE_ENV === 'production', maxAge: 7 * 24 * 3600 * 1000 },
    }),
  );
  app.use(passport.initialize());
  app.use(passport.session());

  // The passkey routes: sign-up verifies the email address first (the default), recovery by email,
  // the passkey list, each added or deleted passkey mailed to its user; GET /passwordless-config and
  // the browser module for the page; the passkey endpoints a password manager links to. Links and
  // origins come from publicUrl (or Passwordless__Origins), never from a request's Host header.
  const hostMailFile = join(dataDir, 'host-mail.md');
  const auth = passwordless({
    users,
    publicUrl,
    exposeConfig: true,
    publicApiUrl,
    recovery: true,
    // The session list ("where you are signed in"): the store finds a user's sessions by an index.
    sessionStore: sessions,
    ...passkeyMails(fileMailer(hostMailFile), 'Passkeys example'),
    // An operator hears before users do that the day's mail budget is running out.
    mailBudget: { onUsage: warnWhenMailRunsLow, ...mailBudget },
    serveBrowserModule: true,
    passkeyEndpoints: { enroll: '/', manage: '/' },
    autofillRestartSeconds: process.env.AUTOFILL_RESTART_SECONDS ? Number(process.env.AUTOFILL_RESTART_SECONDS) : undefined,
    // How old a passkey must be to confirm a step-up (default an hour); a demo or a test may say 0.
    newPasskeyStepUpDelaySeconds: process.env.NEW_PASSKEY_STEP_UP_DELAY_SECONDS ? Number(process.env.NEW_PASSKEY_STEP_UP_DELAY_SECONDS) : undefined,
    throttle,
  });
  app.use(auth);

  app.get('/api/me', auth.requireUser, (req, res) => {
    res.set('Cache-Control', 'no-store').json(publicFields(req.user));
  });
  app.get('/api/passkeys', auth.requireUser, async (req, res, next) => {
    try {
      const credentials = await auth.client.listCredentials(auth.userIdOf(req.user));
      res.set('Cache-Control', 'no-store').json(
        credentials.map((c) => ({ id: c.descriptor.id, nickname: c.nickname, device: c.device, createdAt: c.createdAt, lastUsedAt: c.lastUsedAt })),
      );
    } catch (error) {
      next(error);
    }
  });
  app.use(auth.handleErrors);

  if (process.env.NODE_ENV !== 'production') app.get('/dev/mailbox', mailboxRoute(mailFile, hostMailFile));
  const metrics = metricsToken ? metricsRoute(metricsToken) : undefined;
  if (metrics) app.get('/metrics', metrics);
  app.use(express.static(join(here, 'public')));

  return {
    app,
    close() {
      sessions.close();
      db.close();
    },
  };
}
