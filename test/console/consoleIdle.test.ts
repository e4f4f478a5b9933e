/**
 * The console's sessions end after idleness (issue 36): in process, on a listening server (the
 * middleware calls the API over loopback as in production), with one injected clock for the
 * services, the middleware and the session store. An operator is invited, registers with the
 * software authenticator at the console's origin and is signed in by the invite; each request
 * moves the expiry; a session idle longer than CONSOLE_IDLE_MINUTES is signed out. Only `Date` is
 * faked (express-session dates its cookies by it): timers and I/O run as usual.
 */
import type { Server } from 'node:http';
import { join } from 'node:path';
import supertest from 'supertest';
import { createApp } from '../../src/server/app';
import { consoleHandler } from '../../src/server/console/consoleRouter';
import { inviteOperator } from '../../src/server/console/inviteOperator';
import { loadConfig } from '../../src/server/core/config';
import { createLogger } from '../../src/server/core/logger';
import { createServices, type Services } from '../../src/server/services';
import { openStore } from '../../src/server/store';
import { finishRegistration } from '../support/ceremonies';
import { createTestDatabase, type TestDatabase } from '../support/testService';

jest.setTimeout(60_000);

const MINUTE = 60_000;

describe('an operator idle for longer than CONSOLE_IDLE_MINUTES', () => {
  let database: TestDatabase;
  let services: Services;
  let server: Server;
  let url: string;
  let origin: string;
  const now = () => Date.now();
  const advance = (ms: number) => jest.setSystemTime(Date.now() + ms);

  beforeAll(async () => {
    jest.useFakeTimers({ doNotFake: ['hrtime', 'nextTick', 'performance', 'queueMicrotask', 'setImmediate', 'clearImmediate', 'setInterval', 'clearInterval', 'setTimeout', 'clearTimeout'] });
    database = await createTestDatabase('sqlite');
    const config = loadConfig({ DATABASE_URL: database.url, LOG_LEVEL: 'silent', CONSOLE: 'on', CONSOLE_IDLE_MINUTES: '10', MAIL_FILE: join(__dirname, '..', '..', '.test-tmp', 'mail.md') });
    const store = openStore(config.databaseUrl);
    await store.migrate();
    services = createServices(config, store, { now, reportSweepIntervalMs: 0, metadataRefreshIntervalMs: 0, webhooks: { pollIntervalMs: 0 } });
    const logger = createLogger('silent');
    let ownUrl = '';
    const app = createApp(services, logger, { console: consoleHandler(services, { serviceUrl: () => ownUrl, logger, now }) });
    server = await new Promise<Server>((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    const port = (server.address() as { port: number }).port;
    url = `http://127.0.0.1:${port}`;
    ownUrl = url;
    origin = `http://localhost:${port}`;
    // The console reads PUBLIC_URL when its first request builds it: the port is known only now.
    (services.config as { publicUrl: string }).publicUrl = origin;
  });

  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
    await services?.close();
    await database?.drop();
    jest.useRealTimers();
  });

  it('keeps a session that is used, and signs out one left alone longer than the idle time', async () => {
    const http = supertest(url);
    const config = await http.get('/console/passwordless-config');
    expect(config.body.apiUrl).toBe(origin);
    const invite = await inviteOperator(services, { email: 'idle@example.com', by: 'test' });
    const registerToken = decodeURIComponent(invite.link.split('#token=')[1]);
    const made = await finishRegistration({ http }, { apiKey: config.body.apiKey }, registerToken, { origin, rpId: 'localhost' });
    expect(made.complete.status).toBe(200);
    const signedIn = await http.post('/console/invite/complete').set('Content-Type', 'application/json').set('Sec-Fetch-Site', 'same-origin').send({ token: made.complete.body.token });
    expect(signedIn.status).toBe(200);
    const setCookie = String(signedIn.headers['set-cookie']);
    expect(setCookie).toMatch(/^console=.+; Path=\/console; Expires=.+; HttpOnly; SameSite=Strict$/);
    const cookie = setCookie.split(';')[0];

    const page = () => http.get('/console/operators').set('Cookie', cookie);
    expect((await page()).status).toBe(200);
    // Used every nine minutes, it stays open well past ten minutes from the sign-in.
    for (let i = 0; i < 3; i++) {
      advance(9 * MINUTE);
      const res = await page();
      expect(res.status).toBe(200);
      expect(res.text).toContain('idle@example.com');
    }
    // Left alone for ten minutes and a second: signed out, and sent to sign in.
    advance(10 * MINUTE + 1000);
    const after = await page();
    expect(after.status).toBe(303);
    expect(after.headers.location).toBe('/console/sign-in?next=%2Fconsole%2Foperators');
  });
});
