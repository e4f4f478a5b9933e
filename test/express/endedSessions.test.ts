/**
 * An ended session stays ended while a thief keeps a request in flight: the thief's request loaded
 * the session before the owner ended it and writes it back after (express-session saves a changed
 * session when the answer goes). Every way a session ends is tried — one by its handle, all but
 * this one, the passkey that opened it deleted, `revokeUser`, and the owner's own sign-out of a
 * session whose cookie was copied — on the three kinds of store the middleware supports
 * (express-session's MemoryStore, the example hosts' SQLite store, connect-redis), against a real
 * service process. The thief's request is held by a latch the test opens, so the order is exact.
 */
import type { Request } from 'express';
import supertest from 'supertest';
import { type LocalUser } from '../../src/express';
import { finishRegistration, signIn } from '../support/ceremonies';
import { expectProblem, hostApp, sessionCookie, signUp, type Host } from '../support/hostApp';
import { startServiceProcess, type ServiceProcess } from '../support/serviceProcess';
import { hostStores, sharedHostStores, type StoreFixture } from '../support/sessionStores';
import type { SoftCredential } from '../support/softwareAuthenticator';
import type { TestApp } from '../support/testService';

jest.setTimeout(60_000);

let service: ServiceProcess;
let app: TestApp;

beforeAll(async () => {
  service = await startServiceProcess();
  app = await service.createApp();
});
afterAll(() => service?.stop());

/** A request of the thief's that has loaded its session and waits for the test to let it answer. */
interface HeldRequest {
  /** Lets the request answer (its session is saved then); resolves with its status. */
  release(): Promise<number>;
}

/**
 * A host with a route of its own that changes the session (as a cart or a preference would) and
 * then waits: `hold(agent)` sends it and resolves once the route has the session in hand.
 */
function thiefHost(fixture: Pick<StoreFixture, 'store'>, users?: Host['users']) {
  const h = hostApp(service, app, { sessionStore: fixture.store }, users, { sessionStore: fixture.store });
  const waiting: { reached: () => void; latch: Promise<void> }[] = [];
  h.host.post('/change-something', (req: Request, res) => {
    (req.session as unknown as { changedAt: number }).changedAt = Date.now();
    const held = waiting.shift()!;
    held.reached();
    held.latch.then(() => res.status(204).end());
  });
  async function hold(agent: supertest.Agent): Promise<HeldRequest> {
    let reached!: () => void;
    let open!: () => void;
    const inside = new Promise<void>((resolve) => (reached = resolve));
    const latch = new Promise<void>((resolve) => (open = resolve));
    waiting.push({ reached, latch });
    const answered = agent.post('/change-something').then((res) => res.status);
    await inside;
    return {
      release: () => {
        open();
        return answered;
      },
    };
  }
  return { h, hold };
}

/** The owner on a laptop (signed up with the passkey `laptop`) and a thief on another browser, signed in with the passkey `phone`. */
async function ownerAndThief(h: Host) {
  const { credential: laptop, user } = await signUp(service, app, h);
  const add = await h.agent.post('/passwordless-add-credential').send({});
  expect(add.status).toBe(200);
  const phone = (await finishRegistration(service, app, add.body.token)).credential;
  const thief = supertest.agent(h.host);
  const token = (await signIn(service, app, phone)).complete.body.token as string;
  const login = await thief.post('/passwordless-login').send({ token }).expect(200);
  await thief.get('/me').expect(200);
  return { user: user as LocalUser, laptop, phone, thief, thiefCookie: sessionCookie(login)! };
}

async function stepUp(h: Host, credential: SoftCredential, userId: string) {
  const token = (await signIn(service, app, credential, { userId, purpose: 'step-up' })).complete.body.token as string;
  await h.agent.post('/passwordless-step-up').send({ token }).expect(204);
}

const listOf = async (agent: supertest.Agent) => (await agent.get('/passwordless-sessions').expect(200)).body.sessions as { id: string; current: boolean }[];

describe.each(hostStores())('an ended session stays ended on %s', (_name, makeStore) => {
  let fixture: StoreFixture;
  beforeAll(async () => {
    fixture = await makeStore();
  });
  afterAll(() => fixture?.close());

  /** After the end and the thief's late answer: the thief is signed out, and only the owner's session is left, listed and stored. */
  async function expectThiefOut(h: Host, thief: supertest.Agent, userId: string, ownerLeft: boolean) {
    expectProblem(await thief.get('/me'), 401, 'not_signed_in');
    expectProblem(await thief.get('/passwordless-sessions'), 401, 'not_signed_in');
    expect(await fixture.sessionsOfUser(userId)).toHaveLength(ownerLeft ? 1 : 0);
    if (ownerLeft) expect((await listOf(h.agent)).map((s) => s.current)).toEqual([true]);
  }

  it('when the owner ends it by its handle', async () => {
    const { h, hold } = thiefHost(fixture);
    const { user, laptop, thief } = await ownerAndThief(h);
    await stepUp(h, laptop, user.id);
    const thiefSession = (await listOf(h.agent)).find((s) => !s.current)!;
    const held = await hold(thief);
    expect((await h.agent.post('/passwordless-sessions/end').send({ id: thiefSession.id })).body).toEqual({ ended: 1 });
    expect(await held.release()).toBe(204);
    await expectThiefOut(h, thief, user.id, true);
    // Its handle names nothing any more.
    expectProblem(await h.agent.post('/passwordless-sessions/end').send({ id: thiefSession.id }), 404, 'unknown_session');
  });

  it('when the owner ends all but this one, with two requests of the thief in flight', async () => {
    const { h, hold } = thiefHost(fixture);
    const { user, laptop, thief } = await ownerAndThief(h);
    await stepUp(h, laptop, user.id);
    const first = await hold(thief);
    const second = await hold(thief);
    expect((await h.agent.post('/passwordless-sessions/end').send({ allButThis: true })).body).toEqual({ ended: 1 });
    expect(await first.release()).toBe(204);
    expect(await second.release()).toBe(204);
    await expectThiefOut(h, thief, user.id, true);
  });

  it('when the owner deletes the passkey that opened it', async () => {
    const { h, hold } = thiefHost(fixture);
    const { user, laptop, phone, thief } = await ownerAndThief(h);
    await stepUp(h, laptop, user.id);
    const held = await hold(thief);
    await h.agent.post('/passwordless-passkeys/delete').send({ id: phone.idB64 }).expect(204);
    expect(await held.release()).toBe(204);
    await expectThiefOut(h, thief, user.id, true);
  });

  it('when the host revokes the user, with a request of each session in flight', async () => {
    const { h, hold } = thiefHost(fixture);
    const { user, thief } = await ownerAndThief(h);
    const thiefHeld = await hold(thief);
    const ownerHeld = await hold(h.agent);
    expect(await h.auth.revokeUser(user.id)).toEqual({ passkeys: 2, sessions: 2 });
    expect(await thiefHeld.release()).toBe(204);
    expect(await ownerHeld.release()).toBe(204);
    expectProblem(await h.agent.get('/me'), 401, 'not_signed_in');
    await expectThiefOut(h, thief, user.id, false);
  });

  it("when the owner signs out of a session whose cookie the thief copied", async () => {
    const { h, hold } = thiefHost(fixture);
    const { user, login } = await signUp(service, app, h);
    // The thief replays the owner's own cookie from another client.
    const thief = supertest.agent(h.host).set('Cookie', sessionCookie(login)!);
    await thief.get('/me').expect(200);
    const held = await hold(thief);
    await h.agent.post('/passwordless-logout').send({}).expect(204);
    expect(await held.release()).toBe(204);
    expectProblem(await h.agent.get('/me'), 401, 'not_signed_in');
    await expectThiefOut(h, thief, user.id, false);
  });
});

describe.each(sharedHostStores())('an ended session stays ended across two host processes on %s', (_name, makeStores) => {
  it('when the owner, on one process, ends the session of a thief whose request is in flight on the other', async () => {
    const shared = await makeStores();
    try {
      const one = thiefHost({ store: shared.stores[0] });
      // The second process: the same users and session secret, its own memory.
      const other = thiefHost({ store: shared.stores[1] }, one.h.users);
      const { user, laptop, thiefCookie } = await ownerAndThief(one.h);
      const thief = supertest.agent(other.h.host).set('Cookie', thiefCookie);
      await thief.get('/me').expect(200);
      await stepUp(one.h, laptop, user.id);
      const thiefSession = (await listOf(one.h.agent)).find((s) => !s.current)!;
      const held = await other.hold(thief);
      expect((await one.h.agent.post('/passwordless-sessions/end').send({ id: thiefSession.id })).body).toEqual({ ended: 1 });
      expect(await held.release()).toBe(204);
      expectProblem(await thief.get('/me'), 401, 'not_signed_in');
      expectProblem(await supertest(one.h.host).get('/me').set('Cookie', thiefCookie), 401, 'not_signed_in');
      expect((await listOf(one.h.agent)).map((s) => s.current)).toEqual([true]);
    } finally {
      await shared.close();
    }
  });
});
