import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type supertest from 'supertest';
import { finishRegistration, signIn } from './ceremonies';
import { CLI, childEnv, type ServiceProcess } from './serviceProcess';
import type { SoftCredential } from './softwareAuthenticator';
import { MANAGEMENT_KEY, type TestDatabase } from './testService';

const run = promisify(execFile);

/** A signed-in operator's session, driven with supertest: for checks of server-rendered pages that need no browser. */
export interface ConsoleSession {
  /** The session cookie (`console=…`). */
  cookie: string;
  /** The operator's passkey (the software authenticator's), to sign in again with. */
  credential: SoftCredential;
  /** GET a console path with the session. */
  get(path: string): supertest.Test;
  /**
   * Posts a console form as the browser would: from the console's origin, with the session's CSRF
   * token (read from `formPage`, the page the form is on) and `_back` = `formPage`.
   */
  post(path: string, fields: Record<string, string | string[]>, formPage: string): Promise<supertest.Response>;
}

const sessionCookieOf = (res: supertest.Response, what: string): string => {
  const cookie = ([] as string[]).concat(res.headers['set-cookie'] ?? []).map((c) => c.split(';')[0]).find((c) => c.startsWith('console='));
  if (!cookie) throw new Error(`${what} set no console session cookie`);
  return cookie;
};

function session(service: ServiceProcess, origin: string, cookie: string, credential: SoftCredential): ConsoleSession {
  const self: ConsoleSession = {
    cookie,
    credential,
    get: (path) => service.http.get(path).set('Cookie', cookie),
    async post(path, fields, formPage) {
      const page = await self.get(formPage);
      const csrf = /name="_csrf" value="([^"]+)"/.exec(page.text)?.[1];
      if (!csrf) throw new Error(`no form token on ${formPage} (${page.status})`);
      const body = new URLSearchParams();
      for (const [name, value] of Object.entries(fields)) for (const item of ([] as string[]).concat(value)) body.append(name, item);
      body.set('_csrf', csrf);
      body.set('_back', formPage);
      return service.http.post(path).set('Cookie', cookie).set('Origin', origin).type('form').send(body.toString());
    },
  };
  return self;
}

/**
 * An operator invited through the real CLI (`console invite`), whose passkey is made by the software
 * authenticator (the invite's registration token, at the console's origin), then signed in by the
 * console's own invite completion: the session a browser would hold, without a browser.
 */
export async function consoleSession(service: ServiceProcess & { database: TestDatabase }, origin: string, email: string, env: Record<string, string> = {}): Promise<ConsoleSession> {
  const { stdout } = await run(process.execPath, [CLI, 'console', 'invite', email], {
    env: childEnv({ DATABASE_URL: service.database.url, PUBLIC_URL: origin, MANAGEMENT_KEY, LOG_LEVEL: 'warn', ...env }),
  });
  const token = /\/console\/invite#token=(\S+)/.exec(stdout)?.[1];
  if (!token) throw new Error(`console invite printed no link:\n${stdout}`);
  const config = await service.http.get('/console/passwordless-config');
  if (config.status !== 200) throw new Error(`passwordless-config ${config.status}`);
  const made = await finishRegistration(service, { apiKey: config.body.apiKey }, decodeURIComponent(token), { origin, rpId: new URL(origin).hostname });
  if (made.complete.status !== 200) throw new Error(`register/complete ${made.complete.status} ${JSON.stringify(made.complete.body)}`);
  const signedIn = await service.http.post('/console/invite/complete').set('Content-Type', 'application/json').send({ token: made.complete.body.token });
  if (signedIn.status !== 200) throw new Error(`invite/complete ${signedIn.status} ${signedIn.text}`);
  return session(service, origin, sessionCookieOf(signedIn, 'invite/complete'), made.credential);
}

/**
 * An operator signing in with their passkey as the sign-in page does: the console's public key
 * (from its config route), the software authenticator at the console's origin, then the
 * middleware's login with the verify token. Answers the login's response when it is refused.
 */
export async function consoleSignIn(service: ServiceProcess, origin: string, credential: SoftCredential): Promise<ConsoleSession | supertest.Response> {
  const config = await service.http.get('/console/passwordless-config');
  if (config.status !== 200) throw new Error(`passwordless-config ${config.status}`);
  const { complete } = await signIn(service, { apiKey: config.body.apiKey }, credential, { origin, rpId: new URL(origin).hostname });
  if (complete.status !== 200) throw new Error(`signin/complete ${complete.status} ${JSON.stringify(complete.body)}`);
  const login = await service.http.post('/console/passwordless-login').set('Origin', origin).set('Content-Type', 'application/json').send({ token: complete.body.token });
  return login.status === 200 ? session(service, origin, sessionCookieOf(login, 'passwordless-login'), credential) : login;
}
