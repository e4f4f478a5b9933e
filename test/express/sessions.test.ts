/**
 * A lost device is cut off: a signed-in user lists where they are signed in (device, browser, the
 * passkey that opened each session, created, last seen) and ends those sessions; deleting a
 * passkey ends the sessions it opened; `revokeUser` leaves a user no passkey and no session. Run on
 * the three kinds of store the middleware supports: express-session's MemoryStore (`all()`), the
 * example host's SQLite store (its own `sessionsOf`), and connect-redis on Redis (a per-user set),
 * against a real service process, each browser a cookie jar of its own.
 */
import { createHmac } from 'node:crypto';
import Database from 'better-sqlite3';
import express from 'express';
import session from 'express-session';
import { Passport } from 'passport';
import supertest from 'supertest';
import { InMemoryUserStore, passwordless, PasswordlessSettingsError, type LocalUser, type PasswordlessOptions, type StoredSession } from '../../src/express';
import { sessionDirectory } from '../../src/express/sessions/sessionDirectory';
import { finishRegistration, signIn } from '../support/ceremonies';
import { expectProblem, hostApp, signUp, type Host } from '../support/hostApp';
import { startServiceProcess, type ServiceProcess } from '../support/serviceProcess';
import { hostStores, sqliteSessionStoreClass, type StoreFixture } from '../support/sessionStores';
import type { SoftCredential } from '../support/softwareAuthenticator';
import type { TestApp } from '../support/testService';

jest.setTimeout(60_000);

const WINDOWS_CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const IPHONE_SAFARI = 'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1';
const LINUX_FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0';

let service: ServiceProcess;
let app: TestApp;

beforeAll(async () => {
  service = await startServiceProcess();
  app = await service.createApp();
});
afterAll(() => service?.stop());

/** A cookie value signed as express-session signs its own (cookie-signature): what a forger who knew the secret would send. */
const signedCookie = (value: string, secret: string) => `s:${value}.${createHmac('sha256', secret).update(value).digest('base64').replace(/=+$/, '')}`;

const stores = hostStores();

describe.each(stores)('sessions with %s', (_name, makeStore) => {
  let fixture: StoreFixture;
  beforeAll(async () => {
    fixture = await makeStore();
  });
  afterAll(() => fixture?.close());

  const clock = { now: Date.now() };
  const host = (options: Partial<PasswordlessOptions> = {}): Host => {
    const h = hostApp(service, app, { sessionStore: fixture.store, now: () => clock.now, ...options }, undefined, { sessionStore: fixture.store });
    // The host's own password sign-in, as passport-local would end.
    h.host.post('/password-login', express.json(), (req, res, next) => {
      h.users.findById(String(req.body.id)).then(
        (user) =>
          req.logIn(user as LocalUser, (error) => {
            if (error) return next(error);
            h.auth.notePasswordSignIn(req);
            res.status(204).end();
          }),
        next,
      );
    });
    return h;
  };

  /** A browser of its own (a cookie jar), signed in with `credential`. */
  async function signedInWith(h: Host, credential: SoftCredential, userAgent: string) {
    const agent = supertest.agent(h.host).set('User-Agent', userAgent);
    const token = (await signIn(service, app, credential)).complete.body.token as string;
    await agent.post('/passwordless-login').send({ token }).expect(200);
    return agent;
  }

  /** The user on a laptop (signed up there with the passkey "Laptop") and on a phone (signed in with "Phone"). */
  async function twoDevices(h: Host) {
    h.agent.set('User-Agent', WINDOWS_CHROME);
    const { credential: laptop, user } = await signUp(service, app, h);
    const add = await h.agent.post('/passwordless-add-credential').send({});
    expect(add.status).toBe(200);
    const phone = (await finishRegistration(service, app, add.body.token)).credential;
    await h.agent.post('/passwordless-passkeys/rename').send({ id: laptop.idB64, name: 'Laptop' }).expect(204);
    await h.agent.post('/passwordless-passkeys/rename').send({ id: phone.idB64, name: 'Phone' }).expect(204);
    const onPhone = await signedInWith(h, phone, IPHONE_SAFARI);
    return { user, laptop, phone, onPhone };
  }

  async function stepUp(h: Host, credential: SoftCredential, userId: string) {
    const token = (await signIn(service, app, credential, { userId, purpose: 'step-up' })).complete.body.token as string;
    await h.agent.post('/passwordless-step-up').send({ token }).expect(204);
  }

  const listOf = async (agent: supertest.Agent) => (await agent.get('/passwordless-sessions').expect(200)).body.sessions as Record<string, unknown>[];

  it('finds a user\'s sessions the way this store allows', () => {
    expect(sessionDirectory(fixture.store).how).toBe(fixture.how);
  });

  it('lists both browsers, each with its device, browser and the passkey that opened it, this one first', async () => {
    const h = host();
    const { laptop, phone, onPhone } = await twoDevices(h);
    const list = await listOf(h.agent);
    expect(list).toEqual([
      expect.objectContaining({ current: true, device: 'Windows', browser: 'Chrome', passkeyName: 'Laptop', passkeyId: laptop.idB64 }),
      expect.objectContaining({ current: false, device: 'iPhone', browser: 'Safari', passkeyName: 'Phone', passkeyId: phone.idB64 }),
    ]);
    for (const entry of list) {
      expect(entry.id).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(Date.parse(entry.createdAt as string)).toBeLessThanOrEqual(Date.parse(entry.lastSeenAt as string));
    }
    // The phone sees the same two, itself first.
    expect((await listOf(onPhone)).map((s) => [s.current, s.device])).toEqual([
      [true, 'iPhone'],
      [false, 'Windows'],
    ]);
  });

  it('ends another session after a step-up: it is signed out at its next request, this one stays', async () => {
    const h = host();
    const { user, laptop, onPhone } = await twoDevices(h);
    const phoneSession = (await listOf(h.agent)).find((s) => !s.current)!;

    // Signed in is not enough: a stolen session must not sign its owner out.
    expectProblem(await h.agent.post('/passwordless-sessions/end').send({ id: phoneSession.id }), 401, 'step_up_required');
    await onPhone.get('/me').expect(200);

    await stepUp(h, laptop, user.id);
    expect((await h.agent.post('/passwordless-sessions/end').send({ id: phoneSession.id })).body).toEqual({ ended: 1 });
    expectProblem(await onPhone.get('/me'), 401, 'not_signed_in');
    expectProblem(await onPhone.get('/passwordless-sessions'), 401, 'not_signed_in');
    await h.agent.get('/me').expect(200);
    expect((await listOf(h.agent)).map((s) => s.current)).toEqual([true]);
    expect(await fixture.sessionsOfUser(user.id)).toHaveLength(1);
  });

  it('ends this session by its id like a sign-out, without a step-up', async () => {
    const h = host();
    const { onPhone } = await twoDevices(h);
    const mine = (await listOf(onPhone)).find((s) => s.current)!;
    expect((await onPhone.post('/passwordless-sessions/end').send({ id: mine.id })).body).toEqual({ ended: 1, signedOut: true });
    expectProblem(await onPhone.get('/me'), 401, 'not_signed_in');
    await h.agent.get('/me').expect(200);
  });

  it('ends all but this one, after a step-up when there are others', async () => {
    const h = host();
    const { user, laptop, phone, onPhone } = await twoDevices(h);
    const alsoPhone = await signedInWith(h, phone, LINUX_FIREFOX);
    expectProblem(await h.agent.post('/passwordless-sessions/end').send({ allButThis: true }), 401, 'step_up_required');
    await stepUp(h, laptop, user.id);
    expect((await h.agent.post('/passwordless-sessions/end').send({ allButThis: true })).body).toEqual({ ended: 2 });
    expectProblem(await onPhone.get('/me'), 401, 'not_signed_in');
    expectProblem(await alsoPhone.get('/me'), 401, 'not_signed_in');
    await h.agent.get('/me').expect(200);
    // Nothing left to end: no step-up asked.
    expect((await h.agent.post('/passwordless-sessions/end').send({ allButThis: true })).body).toEqual({ ended: 0 });
  });

  it('deleting the passkey that opened the other session signs that one out too (unless the host turns it off)', async () => {
    const h = host();
    const { user, laptop, phone, onPhone } = await twoDevices(h);
    await stepUp(h, laptop, user.id);
    await h.agent.post('/passwordless-passkeys/delete').send({ id: phone.idB64 }).expect(204);
    expectProblem(await onPhone.get('/me'), 401, 'not_signed_in');
    await h.agent.get('/me').expect(200);

    const kept = host({ endSessionsOnPasskeyDelete: false });
    const second = await twoDevices(kept);
    await stepUp(kept, second.laptop, second.user.id);
    await kept.agent.post('/passwordless-passkeys/delete').send({ id: second.phone.idB64 }).expect(204);
    await second.onPhone.get('/me').expect(200);
    expect((await listOf(kept.agent)).find((s) => !s.current)).toMatchObject({ device: 'iPhone', passkeyName: null, passkeyId: null });
  });

  it('lists a session the host\'s own password sign-in opened, from its first request', async () => {
    const h = host();
    const { user } = await twoDevices(h);
    const withPassword = supertest.agent(h.host).set('User-Agent', LINUX_FIREFOX);
    await withPassword.post('/password-login').send({ id: user.id }).expect(204);
    await withPassword.get('/me').expect(200);
    expect(await listOf(h.agent)).toContainEqual(expect.objectContaining({ current: false, device: 'Linux', browser: 'Firefox', passkeyName: null }));
  });

  it('lists a password sign-in that notePasswordSignIn noted as soon as the sign-in has answered', async () => {
    const h = host();
    const { user } = await twoDevices(h);
    const withPassword = supertest.agent(h.host).set('User-Agent', LINUX_FIREFOX);
    await withPassword.post('/password-login').send({ id: user.id }).expect(204);
    expect(await listOf(h.agent)).toContainEqual(expect.objectContaining({ current: false, device: 'Linux', browser: 'Firefox', passkeyName: null }));
  });

  it('moves last seen on at most once a minute', async () => {
    const h = host();
    await twoDevices(h);
    const seen = async () => (await listOf(h.agent)).find((s) => s.current)!.lastSeenAt;
    const first = await seen();
    clock.now += 30_000;
    expect(await seen()).toBe(first);
    clock.now += 31_000;
    expect(await seen()).toBe(new Date(clock.now).toISOString());
  });

  it('revokeUser leaves the user no passkey at the service and no session in the store', async () => {
    const h = host();
    const { user, onPhone } = await twoDevices(h);
    expect(await fixture.sessionsOfUser(user.id)).toHaveLength(2);
    expect(await h.auth.revokeUser(user.id)).toEqual({ passkeys: 2, sessions: 2 });
    expect(await h.auth.client.listCredentials(user.id)).toEqual([]);
    expect(await fixture.sessionsOfUser(user.id)).toEqual([]);
    expectProblem(await h.agent.get('/me'), 401, 'not_signed_in');
    expectProblem(await onPhone.get('/me'), 401, 'not_signed_in');
  });

  describe('an attacker', () => {
    it('cannot use a listed id as a session cookie', async () => {
      const h = host();
      const { onPhone } = await twoDevices(h);
      for (const { id } of await listOf(h.agent)) {
        for (const cookie of [`connect.sid=${id}`, `connect.sid=${encodeURIComponent(`s:${signedCookie(String(id), 'host-session-secret')}`)}`]) {
          expectProblem(await supertest(h.host).get('/me').set('Cookie', cookie), 401, 'not_signed_in');
        }
      }
      await onPhone.get('/me').expect(200);
    });

    it("cannot end another user's session by its id, even stepped up", async () => {
      const h = host();
      const victim = await twoDevices(h);
      const victimIds = (await listOf(victim.onPhone)).map((s) => s.id);
      const attacker = supertest.agent(h.host);
      const { credential, user } = await signUp(service, app, { ...h, agent: attacker });
      const token = (await signIn(service, app, credential, { userId: user.id, purpose: 'step-up' })).complete.body.token as string;
      await attacker.post('/passwordless-step-up').send({ token }).expect(204);
      for (const id of victimIds) expectProblem(await attacker.post('/passwordless-sessions/end').send({ id }), 404, 'unknown_session');
      await victim.onPhone.get('/me').expect(200);
      await h.agent.get('/me').expect(200);
    });

    it('gets a clear 4xx for a malformed end request, and a 401 signed out', async () => {
      const h = host();
      await twoDevices(h);
      for (const body of [{}, { id: '' }, { id: 42 }, { allButThis: false }, { id: 'x', allButThis: true }, { id: 'x'.repeat(101) }]) {
        expectProblem(await h.agent.post('/passwordless-sessions/end').send(body), 400, 'validation_failed');
      }
      expectProblem(await h.agent.post('/passwordless-sessions/end').send({ id: 'not-a-session' }), 404, 'unknown_session');
      expectProblem(await supertest(h.host).get('/passwordless-sessions'), 401, 'not_signed_in');
      expectProblem(await supertest(h.host).post('/passwordless-sessions/end').send({ allButThis: true }), 401, 'not_signed_in');
      expectProblem(await h.agent.post('/passwordless-sessions/end').set('Content-Type', 'text/plain').send('{"allButThis":true}'), 415, 'unsupported_media_type');
      expectProblem(await h.agent.post('/passwordless-sessions/end').set('Sec-Fetch-Site', 'cross-site').send({ allButThis: true }), 403, 'cross_site_request');
    });
  });
});

describe("the example's SQLite store", () => {
  it('adds its indexed user_id column to a database made before it, and finds a session there once it is saved again', async () => {
    const SqliteSessionStore = await sqliteSessionStoreClass();
    const db = new Database(':memory:');
    db.exec('CREATE TABLE sessions (sid TEXT PRIMARY KEY, data TEXT NOT NULL, expires INTEGER NOT NULL)');
    const old = { cookie: { expires: new Date(Date.now() + 3_600_000).toISOString() }, passwordlessSession: { userId: 'u1', createdAt: 1, lastSeenAt: 1, device: 'Linux', browser: 'Firefox' } };
    db.prepare('INSERT INTO sessions (sid, data, expires) VALUES (?, ?, ?)').run('old', JSON.stringify(old), Date.now() + 3_600_000);
    const store = new SqliteSessionStore(db);
    try {
      const directory = sessionDirectory(store);
      expect(directory.how).toBe('sessionsOf');
      expect([...(await directory.candidates('u1')).keys()]).toEqual([]);
      await new Promise<void>((resolve, reject) => store.set('old', old as unknown as session.SessionData, (error) => (error ? reject(error) : resolve())));
      expect([...(await directory.candidates('u1')).keys()]).toEqual(['old']);
      expect(db.prepare("SELECT name FROM pragma_index_list('sessions')").all()).toContainEqual({ name: 'sessions_user_id' });
    } finally {
      store.close();
      db.close();
    }
  });
});

describe('the session features at start-up', () => {
  const quiet = { error: () => undefined, warn: () => undefined };
  const base = () => ({ users: new InMemoryUserStore(), passport: new Passport(), logger: quiet, env: {}, apiKey: app.apiKey, apiSecret: app.apiSecret, apiUrl: service.url, origins: 'https://app.example.com', verifyEmail: false as const });

  it('refuse a store that cannot list sessions, in one error naming what is missing', () => {
    const store = { get: () => undefined, set: () => undefined, destroy: () => undefined };
    let thrown: unknown;
    try {
      passwordless({ ...base(), sessionStore: store });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(PasswordlessSettingsError);
    expect((thrown as Error).message).toMatch(/^sessionStore cannot list a user's sessions: it has no sessionsOf\(userId, callback\) and no all\(callback\)/);
    // The host can say it does without them.
    expect(() => passwordless({ ...base(), sessionStore: store, sessions: false })).not.toThrow();
  });

  it('refuse the features without a store, and something that is no store', () => {
    expect(() => passwordless({ ...base(), sessions: true })).toThrow(/^sessions needs sessionStore/);
    expect(() => passwordless({ ...base(), sessionStore: {} })).toThrow(/^sessionStore must be the express-session store/);
  });

  it('leave the routes unmounted and revokeUser refusing without a store', async () => {
    const auth = passwordless({ ...base(), exposeConfig: true });
    const page = express().use(auth);
    expect((await supertest(page).get('/passwordless-config')).body.paths).not.toHaveProperty('sessions');
    expect((await supertest(page).get('/passwordless-sessions')).status).toBe(404);
    await expect(auth.revokeUser('someone')).rejects.toThrow(/^sessionStore is needed by revokeUser/);
  });
});
