import express, { type Express } from 'express';
import session from 'express-session';
import { Passport } from 'passport';
import supertest from 'supertest';
import { InMemoryUserStore, passwordless, type LocalUser, type PasswordlessOptions, type UserStore } from '../../src/express';
import { finishRegistration, ORIGIN } from './ceremonies';
import type { ServiceProcess } from './serviceProcess';
import type { TestApp } from './testService';

export interface Host {
  host: Express;
  users: UserStore & { size?: number };
  auth: ReturnType<typeof passwordless>;
  agent: ReturnType<typeof supertest.agent>;
  /** Every body the host sent, to check no secret ever left it. */
  bodies: string[];
  /** What the middleware logged. */
  logged: { message: string; details: Record<string, unknown> }[];
}

export interface HostAppOptions {
  /** The host runs behind one proxy (`app.set('trust proxy', 1)`): X-Forwarded-For names the client. */
  trustProxy?: boolean;
  /** express-session's store (default its MemoryStore); the middleware's `sessionStore` option is the test's to give. */
  sessionStore?: session.Store;
}

/**
 * A host app as the README shows it, on `service`'s app `app`, plus a protected `/me`, a route
 * that only touches the session, and a route of its own on the strategy. Tokens from the test
 * ceremonies are made on ORIGIN, which is the host's origin unless the options say otherwise.
 */
export function hostApp(
  service: Pick<ServiceProcess, 'url'>,
  app: TestApp,
  options: Partial<PasswordlessOptions> = {},
  users: UserStore = new InMemoryUserStore(),
  { trustProxy = false, sessionStore }: HostAppOptions = {},
): Host {
  const passport = new Passport();
  const host = express();
  if (trustProxy) host.set('trust proxy', 1);
  const bodies: string[] = [];
  const logged: Host['logged'] = [];
  host.use((_req, res, next) => {
    const end = res.end.bind(res) as (...args: unknown[]) => typeof res;
    res.end = ((...args: unknown[]) => {
      if (typeof args[0] === 'string' || Buffer.isBuffer(args[0])) bodies.push(String(args[0]));
      return end(...args);
    }) as typeof res.end;
    next();
  });
  host.use(session({ secret: 'host-session-secret', resave: false, saveUninitialized: false, ...(sessionStore ? { store: sessionStore } : {}) }));
  host.use(passport.initialize());
  host.use(passport.session());
  const record = (details: Record<string, unknown>, message: string) => void logged.push({ message, details });
  const auth = passwordless({
    users,
    passport,
    env: {},
    apiKey: app.apiKey,
    apiSecret: app.apiSecret,
    apiUrl: service.url,
    origins: ORIGIN,
    // Most suites sign up without a mailed link (the middleware's default is with one); each
    // suite of the mailed sign-up says verifyEmail: true.
    verifyEmail: false,
    logger: { error: record, warn: record },
    ...options,
  });
  host.use(auth);
  host.get('/me', auth.requireUser, (req, res) => {
    res.json(req.user);
  });
  host.post('/touch', (req, res) => {
    (req.session as unknown as { visited: boolean }).visited = true;
    res.status(204).end();
  });
  // A host's own route on the same strategy.
  host.post('/own-login', express.json(), passport.authenticate(auth.settings.signInScheme), (req, res) => {
    res.json({ signedInAs: (req.user as LocalUser).id });
  });
  return { host, users, auth, agent: supertest.agent(host), bodies, logged };
}

let counter = 0;
/** An email address no other test uses. */
export const newEmail = () => `user${++counter}-${Date.now()}@example.com`;

/**
 * Starts a sign-up through the host, then runs the passkey ceremony against the service as the
 * browser would; nothing is signed in yet. Returns the `passkey_register` verify token.
 */
export async function startSignUp(service: ServiceProcess, app: TestApp, h: Host, email = newEmail(), extra: Record<string, unknown> = {}) {
  const res = await h.agent.post('/passwordless-register').send({ email, username: email.split('@')[0], displayName: 'Test User', ...extra });
  if (res.status !== 200) throw new Error(`sign-up ${res.status} ${JSON.stringify(res.body)}`);
  const registration = await finishRegistration(service, app, res.body.token);
  if (registration.complete.status !== 200) throw new Error(`register/complete ${registration.complete.status} ${JSON.stringify(registration.complete.body)}`);
  return {
    email,
    registerToken: res.body.token as string,
    options: registration.begin.body.data,
    credential: registration.credential,
    verifyToken: registration.complete.body.token as string,
  };
}

/** A sign-up to the end: the ceremony, then login with its token, which creates the user and signs in. */
export async function signUp(service: ServiceProcess, app: TestApp, h: Host, email = newEmail(), extra: Record<string, unknown> = {}) {
  const started = await startSignUp(service, app, h, email, extra);
  const login = await h.agent.post('/passwordless-login').send({ token: started.verifyToken });
  if (login.status !== 200) throw new Error(`login ${login.status} ${JSON.stringify(login.body)}`);
  return { ...started, user: login.body as LocalUser, login };
}

export function sessionCookie(res: supertest.Response): string | undefined {
  const cookies = ([] as string[]).concat(res.headers['set-cookie'] ?? []);
  return cookies.find((c) => c.startsWith('connect.sid='))?.split(';')[0];
}

export function expectProblem(res: supertest.Response, status: number, errorCode: string): void {
  expect({ status: res.status, contentType: res.headers['content-type'], errorCode: res.body?.errorCode }).toEqual({
    status,
    contentType: 'application/problem+json',
    errorCode,
  });
  expect(res.body).toMatchObject({ type: expect.stringContaining(errorCode), title: expect.any(String), status });
}
