/**
 * A stolen session cannot become a permanent credential: adding a passkey needs a step-up (but for
 * a few minutes after a sign-up or a recovery), a passkey added in the session confirms no step-up
 * until it is old enough, and the host hears of every passkey added or deleted. Against a real
 * service process, the host driven over HTTP with the victim's cookie.
 */
import session from 'express-session';
import supertest from 'supertest';
import type { PasskeyAddedEvent, PasskeyEvent, PasswordlessOptions } from '../../src/express';
import { finishRegistration, signIn } from '../support/ceremonies';
import { expectProblem, hostApp as hostOn, signUp as signUpOn, type Host } from '../support/hostApp';
import { startServiceProcess, type ServiceProcess } from '../support/serviceProcess';
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

const clock = { now: Date.now() };
const hostApp = (options: Partial<PasswordlessOptions> = {}) => hostOn(service, app, { now: () => clock.now, ...options });

/** A step-up token made with `credential`, as the published client's `stepup()` makes it. */
async function stepUpToken(credential: SoftCredential, userId: string) {
  const signin = await signIn(service, app, credential, { userId, purpose: 'step-up' });
  expect(signin.complete.status).toBe(200);
  return signin.complete.body.token as string;
}

/** The victim: signed up in one session, then signed in with the passkey in another, whose cookie the attacker has. */
async function victimSession(h: Host) {
  const { credential, user } = await signUpOn(service, app, h);
  const stolen = supertest.agent(h.host);
  const login = await stolen.post('/passwordless-login').send({ token: (await signIn(service, app, credential)).complete.body.token });
  expect(login.status).toBe(200);
  return { credential, user, stolen };
}

const passkeyIds = async (h: Host, userId: string) => (await h.auth.client.listCredentials(userId)).map((c) => c.descriptor.id);

describe('a stolen session', () => {
  it('cannot add a passkey without a step-up with one the user had: the review\'s add, step up, delete is stopped at the add', async () => {
    // Every passkey here is minutes old: the owner's counts as old enough (0 s) for its step-up.
    const h = hostApp({ newPasskeyStepUpDelaySeconds: 0 });
    const { credential, user, stolen } = await victimSession(h);
    // Before, this answered a registration token; the attacker's passkey then stepped up and deleted the owner's.
    const add = await stolen.post('/passwordless-add-credential').send({});
    expectProblem(add, 401, 'step_up_required');
    expect(add.body.purpose).toBe('step-up');
    expectProblem(await stolen.post('/passwordless-passkeys/delete').send({ id: credential.idB64 }), 401, 'step_up_required');
    expect(await passkeyIds(h, user.id)).toEqual([credential.idB64]);

    // The owner, with their passkey, steps up and may then add one.
    await stolen.post('/passwordless-step-up').send({ token: await stepUpToken(credential, user.id) }).expect(204);
    expect((await stolen.post('/passwordless-add-credential').send({})).status).toBe(200);
  });

  it('cannot step up with a passkey added in the session until it is old enough; one the user had before still can', async () => {
    const h = hostApp();
    const { credential, user } = await signUpOn(service, app, h);
    // Minutes after its sign-up, the session may add a passkey without a step-up.
    const add = await h.agent.post('/passwordless-add-credential').send({});
    expect(add.status).toBe(200);
    const added = await finishRegistration(service, app, add.body.token);
    expect(added.complete.status).toBe(200);

    const tooNew = await h.agent.post('/passwordless-step-up').send({ token: await stepUpToken(added.credential, user.id) });
    expectProblem(tooNew, 403, 'passkey_too_new');
    expect(tooNew.body.detail).toMatch(/60 minutes old/);
    expectProblem(await h.agent.post('/passwordless-passkeys/delete').send({ id: credential.idB64 }), 401, 'step_up_required');
    expect(await passkeyIds(h, user.id)).toHaveLength(2);

    await h.agent.post('/passwordless-step-up').send({ token: await stepUpToken(credential, user.id) }).expect(204);
    expect((await h.agent.post('/passwordless-passkeys/delete').send({ id: added.credential.idB64 })).status).toBe(204);
  });

  it("signs in elsewhere with a passkey it added, but that passkey steps up no sooner there, and so cannot end the owner's other sessions", async () => {
    const store = new session.MemoryStore();
    const h = hostOn(service, app, { now: () => clock.now, sessionStore: store }, undefined, { sessionStore: store });
    const { credential, user } = await signUpOn(service, app, h);
    const ownersOther = supertest.agent(h.host);
    await ownersOther.post('/passwordless-login').send({ token: (await signIn(service, app, credential)).complete.body.token }).expect(200);
    // The sign-up's session may add a passkey for a few minutes: whoever holds it makes one.
    const add = await h.agent.post('/passwordless-add-credential').send({});
    const added = await finishRegistration(service, app, add.body.token);
    expect(added.complete.status).toBe(200);

    // A fresh session, opened by the new passkey itself (so it "opened the session", and existed before the sign-in).
    const thief = supertest.agent(h.host);
    await thief.post('/passwordless-login').send({ token: (await signIn(service, app, added.credential)).complete.body.token }).expect(200);
    // Before, this step-up answered 204, and the end below {"ended":2}.
    expectProblem(await thief.post('/passwordless-step-up').send({ token: await stepUpToken(added.credential, user.id) }), 403, 'passkey_too_new');
    expectProblem(await thief.post('/passwordless-sessions/end').send({ allButThis: true }), 401, 'step_up_required');
    expectProblem(await thief.post('/passwordless-passkeys/delete').send({ id: credential.idB64 }), 401, 'step_up_required');
    expect((await ownersOther.get('/me')).status).toBe(200);
    expect((await h.agent.get('/me')).status).toBe(200);
    expect(await passkeyIds(h, user.id)).toHaveLength(2);
  });

  it('may step up with an added passkey once it is newPasskeyStepUpDelaySeconds old (0 here)', async () => {
    const h = hostApp({ newPasskeyStepUpDelaySeconds: 0 });
    const { user } = await signUpOn(service, app, h);
    const add = await h.agent.post('/passwordless-add-credential').send({});
    const added = await finishRegistration(service, app, add.body.token);
    await h.agent.post('/passwordless-step-up').send({ token: await stepUpToken(added.credential, user.id) }).expect(204);
  });

  it('of a sign-up needs a step-up to add a passkey once freshSessionSeconds have passed', async () => {
    const h = hostApp({ freshSessionSeconds: 120 });
    const { credential, user } = await signUpOn(service, app, h);
    clock.now += 121_000;
    try {
      expectProblem(await h.agent.post('/passwordless-add-credential').send({}), 401, 'step_up_required');
      await h.agent.post('/passwordless-step-up').send({ token: await stepUpToken(credential, user.id) }).expect(204);
      expect((await h.agent.post('/passwordless-add-credential').send({})).status).toBe(200);
    } finally {
      clock.now -= 121_000;
    }
  });
});

describe('the host hears of every passkey added or deleted', () => {
  it('onPasskeyAdded at the sign-up and at each added passkey the browser reports, onPasskeyDeleted at each deletion', async () => {
    const added: PasskeyAddedEvent[] = [];
    const deleted: PasskeyEvent[] = [];
    const h = hostApp({ onPasskeyAdded: (event) => void added.push(event), onPasskeyDeleted: (event) => void deleted.push(event) });
    const { credential, user } = await signUpOn(service, app, h);
    expect(added).toEqual([{ user: expect.objectContaining({ id: user.id }), userId: user.id, passkey: { id: credential.idB64, name: '', device: expect.any(String) }, via: 'sign-up' }]);

    const add = await h.agent.post('/passwordless-add-credential').send({});
    const phone = await finishRegistration(service, app, add.body.token, { nickname: 'Phone' });
    const reported = await h.agent.post('/passwordless-add-credential/complete').send({ token: phone.complete.body.token });
    expect({ status: reported.status, body: reported.body }).toEqual({ status: 200, body: { id: phone.credential.idB64, name: 'Phone' } });
    expect(added[1]).toEqual({ user: expect.objectContaining({ id: user.id }), userId: user.id, passkey: { id: phone.credential.idB64, name: 'Phone', device: expect.any(String) }, via: 'add' });
    // The token is redeemed: reporting it twice tells the host nothing more.
    expect((await h.agent.post('/passwordless-add-credential/complete').send({ token: phone.complete.body.token })).status).toBe(400);
    expect(added).toHaveLength(2);

    await h.agent.post('/passwordless-step-up').send({ token: await stepUpToken(credential, user.id) }).expect(204);
    await h.agent.post('/passwordless-passkeys/delete').send({ id: phone.credential.idB64 }).expect(204);
    expect(deleted).toEqual([{ user: expect.objectContaining({ id: user.id }), userId: user.id, passkey: { id: phone.credential.idB64, name: 'Phone', device: expect.any(String) } }]);
  });

  it("refuses to report another user's registration, or one made on another origin", async () => {
    const h = hostApp();
    const other = await signUpOn(service, app, hostApp());
    await signUpOn(service, app, h);
    // Another user's passkey, registered through the service directly.
    const theirs = await service.http.post('/register/token').set('ApiSecret', app.apiSecret).send({ userId: other.user.id, username: 'x' });
    const made = await finishRegistration(service, app, theirs.body.token);
    expectProblem(await h.agent.post('/passwordless-add-credential/complete').send({ token: made.complete.body.token }), 401, 'token_not_accepted');
    const mine = await h.agent.post('/passwordless-add-credential').send({});
    const sibling = await finishRegistration(service, app, mine.body.token, { origin: 'https://usercontent.app.example.com' });
    expectProblem(await h.agent.post('/passwordless-add-credential/complete').send({ token: sibling.complete.body.token }), 401, 'token_not_accepted');
  });

  it('a hook that fails does not fail the request, and is logged', async () => {
    const h = hostApp({
      onPasskeyAdded: () => {
        throw new Error('mail server down');
      },
    });
    await signUpOn(service, app, h);
    expect(h.logged).toContainEqual(expect.objectContaining({ message: 'passwordless: the onPasskeyAdded hook failed' }));
  });
});
