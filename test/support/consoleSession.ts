import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type supertest from 'supertest';
import { finishRegistration } from './ceremonies';
import type { SoftCredential } from './softwareAuthenticator';
import { CLI, childEnv, type ServiceProcess } from './serviceProcess';
import { MANAGEMENT_KEY, type TestDatabase } from './testService';

const run = promisify(execFile);

/** A signed-in operator's session, driven with supertest: for checks of server-rendered pages that need no browser. */
export interface ConsoleSession {
  /** The session cookie (`console=…`). */
  cookie: string;
  /** The operator's passkey, made by the software authenticator. */
  credential: SoftCredential;
  /** The console app's public key (for ceremonies at the service, as the console's pages run them). */
  apiKey: string;
  /** GET a console path with the session. */
  get(path: string): supertest.Test;
  /**
   * Posts a console form as the browser would: from the console's origin, with the session's CSRF
   * token (read from `formPage`, the page the form is on) and `_back` = `formPage`.
   */
  post(path: string, fields: Record<string, string | string[]>, formPage: string): Promise<supertest.Response>;
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
  const cookie = ([] as string[]).concat(signedIn.headers['set-cookie'] ?? []).map((c) => c.split(';')[0]).find((c) => c.startsWith('console='));
  if (!cookie) throw new Error('invite/complete set no console session cookie');
  const session: ConsoleSession = {
    cookie,
    credential: made.credential,
    apiKey: config.body.apiKey,
    get: (path) => service.http.get(path).set('Cookie', cookie),
    async post(path, fields, formPage) {
      const page = await session.get(formPage);
      const csrf = /name="_csrf" value="([^"]+)"/.exec(page.text)?.[1];
      if (!csrf) throw new Error(`no form token on ${formPage} (${page.status})`);
      const body = new URLSearchParams();
      for (const [name, value] of Object.entries(fields)) for (const item of ([] as string[]).concat(value)) body.append(name, item);
      body.set('_csrf', csrf);
      body.set('_back', formPage);
      return service.http.post(path).set('Cookie', cookie).set('Origin', origin).type('form').send(body.toString());
    },
  };
  return session;
}
