/**
 * An ended console session stays ended while a thief keeps a request in flight (issue 44,
 * finding 4), against a real service process whose console keeps its sessions in Redis: the
 * thief's form post has loaded its session (seen in Redis's MONITOR as the read of its key) and
 * waits for the rest of its body; the operator ends that session from their own; then the body
 * arrives, the action answers and express-session writes the session back. The thief must be
 * signed out all the same, and the session list must not show it again. (The memory store's
 * refusal is in consoleSessionStore.test.ts; the host kit's stores in
 * test/express/endedSessions.test.ts.)
 */
import { request as httpRequest, type ClientRequest } from 'node:http';
import { createClient } from 'redis';
import { signIn } from '../support/ceremonies';
import { consoleSession, consoleSignIn, type ConsoleSession } from '../support/consoleSession';
import { dropRedisKeys, testRedisUrl, uniqueRedisPrefix } from '../support/redis';
import { startServiceProcess, type ServiceProcess } from '../support/serviceProcess';
import type { TestDatabase } from '../support/testService';

jest.setTimeout(40_000);

const redisUrl = testRedisUrl();
const withRedis = redisUrl ? describe : describe.skip;

/** The sid inside a console cookie (`console=s%3A<sid>.<signature>`). */
const sidOf = (cookie: string) => /^s:([^.]+)\./.exec(decodeURIComponent(cookie.split('=')[1]))![1];

withRedis('an ended console session stays ended (sessions in Redis)', () => {
  let service: ServiceProcess & { database: TestDatabase };
  let origin: string;
  const prefix = uniqueRedisPrefix();

  beforeAll(async () => {
    service = await startServiceProcess({ PUBLIC_URL: 'http://localhost:{port}', CONSOLE: 'on', REDIS_URL: redisUrl!, REDIS_KEY_PREFIX: prefix });
    origin = new URL(service.url).origin.replace('127.0.0.1', 'localhost');
  });
  afterAll(async () => {
    await service?.stop();
    await dropRedisKeys(redisUrl!, prefix);
  });

  /** A second sign-in of the operator, elsewhere (the thief's): its cookie. */
  async function signInAgain(operator: ConsoleSession): Promise<string> {
    const signedIn = await consoleSignIn(service, origin, operator.credential);
    if (!('cookie' in signedIn)) throw new Error(`sign-in ${signedIn.status} ${signedIn.text}`);
    return signedIn.cookie;
  }

  async function stepUp(operator: ConsoleSession): Promise<void> {
    const apiKey = (await service.http.get('/console/passwordless-config')).body.apiKey as string;
    const token = (await signIn(service, { apiKey }, operator.credential, { origin, rpId: 'localhost', purpose: 'step-up' })).complete.body.token as string;
    const res = await service.http.post('/console/passwordless-step-up').set('Cookie', operator.cookie).set('Origin', origin).set('Content-Type', 'application/json').send({ token });
    expect(res.status).toBe(204);
  }

  const sessionsOf = async (cookie: string) => {
    const res = await service.http.get('/console/passwordless-sessions').set('Cookie', cookie);
    expect(res.status).toBe(200);
    return res.body.sessions as { id: string; current: boolean }[];
  };

  /**
   * The thief's form post: headers and half its body sent; resolves once Redis has answered the
   * read of its session, with a function that sends the rest and resolves with the status.
   */
  async function holdFormPost(cookie: string, path: string, body: string): Promise<() => Promise<number>> {
    const monitor = createClient({ url: redisUrl });
    await monitor.connect();
    const key = `${prefix}console:sess:${sidOf(cookie)}`;
    let sawRead!: () => void;
    const read = new Promise<void>((resolve) => (sawRead = resolve));
    // MONITOR prints each command as it runs: `<time> [0 <client>] "GET" "<key>"`.
    await monitor.monitor((line) => {
      if (String(line).includes(`"GET" "${key}"`)) sawRead();
    });
    const url = new URL(path, service.url);
    let request!: ClientRequest;
    const answered = new Promise<number>((resolve, reject) => {
      request = httpRequest(url, { method: 'POST', headers: { Cookie: cookie, Origin: origin, 'Content-Type': 'application/x-www-form-urlencoded', 'Content-Length': Buffer.byteLength(body) } }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode!));
      });
      request.on('error', reject);
    });
    request.write(body.slice(0, 10));
    await read;
    // A client in MONITOR mode takes every reply as a monitor line (QUIT would wait forever): closed at once.
    monitor.destroy();
    return () => {
      request.end(body.slice(10));
      return answered;
    };
  }

  it('when the operator ends the thief\'s session while its form post is in flight', async () => {
    const operator = await consoleSession(service, origin, 'owner@example.com', { REDIS_URL: redisUrl!, REDIS_KEY_PREFIX: prefix });
    const thief = await signInAgain(operator);
    expect((await service.http.get('/console/apps').set('Cookie', thief)).status).toBe(200);
    await stepUp(operator);
    const handle = (await sessionsOf(operator.cookie)).find((s) => !s.current)!.id;

    // A form of the thief's own page: its answer (a notice) changes the session, so it is saved.
    const page = await service.http.get('/console/operators').set('Cookie', thief);
    const csrf = /name="_csrf" value="([^"]+)"/.exec(page.text)![1];
    const release = await holdFormPost(thief, '/console/operators/invite', new URLSearchParams({ email: 'not an address', _csrf: csrf, _back: '/console/operators' }).toString());

    const end = await service.http.post('/console/passwordless-sessions/end').set('Cookie', operator.cookie).set('Origin', origin).set('Content-Type', 'application/json').send({ id: handle });
    expect(end.body).toEqual({ ended: 1 });
    expect(await release()).toBe(303);

    const after = await service.http.get('/console/apps').set('Cookie', thief);
    expect({ status: after.status, location: after.headers.location }).toEqual({ status: 303, location: '/console/sign-in?next=%2Fconsole%2Fapps' });
    expect((await sessionsOf(operator.cookie)).map((s) => s.current)).toEqual([true]);
  });
});
