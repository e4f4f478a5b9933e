/**
 * The signed-in user's own passkeys (list with provider names, rename, delete behind a step-up),
 * step-up itself, and recovery by email: the middleware against a real service process.
 */
import { existsSync, readFileSync } from 'node:fs';
import supertest from 'supertest';
import { InMemoryUserStore, type PasswordlessOptions } from '../../src/express';
import { finishRegistration, signIn } from '../support/ceremonies';
import { eventually } from '../support/eventually';
import { expectProblem, hostApp as hostOn, newEmail, sessionCookie, signUp as signUpOn, type Host } from '../support/hostApp';
import { startServiceProcess, type ServiceProcess } from '../support/serviceProcess';
import type { TestApp } from '../support/testService';

jest.setTimeout(60_000);

let service: ServiceProcess;
let app: TestApp;

beforeAll(async () => {
  service = await startServiceProcess({ MAGIC_LINK_NEW_APP_PERIOD: '00:00:00' });
  app = await service.createApp();
});
afterAll(() => service?.stop());

const clock = { now: Date.now() };
const hostApp = (options: Partial<PasswordlessOptions> = {}) => hostOn(service, app, { now: () => clock.now, ...options });
const signUp = (h: Host) => signUpOn(service, app, h);
const json = { 'Content-Type': 'application/json' };

/** A passkey step-up of `purpose`, made with `credential` (as the published client's `stepup()` would). */
async function stepUpToken(credential: Parameters<typeof signIn>[2], userId: string, purpose = 'step-up') {
  const signin = await signIn(service, app, credential, { userId, purpose });
  expect(signin.complete.status).toBe(200);
  return signin.complete.body.token as string;
}

describe('the signed-in user\'s passkeys', () => {
  it('lists them with provider name, name, dates, synced and device, the last used first; signed out is 401', async () => {
    const h = hostApp();
    const { user, email } = await signUp(h);
    const add = await h.agent.post('/passwordless-add-credential').send({});
    const second = await finishRegistration(service, app, add.body.token, { nickname: 'Phone', authenticator: { aaguid: Buffer.from('ea9b8d664d011d213ce4b6b48cb575d4', 'hex'), backupEligible: true, backupState: true } });
    expect(second.complete.status).toBe(200);
    await signIn(service, app, second.credential, { alias: email });
    const res = await h.agent.get('/passwordless-passkeys');
    expect(res.status).toBe(200);
    expect(res.body.user).toEqual({ userId: user.id, userHandle: Buffer.from(user.id).toString('base64url'), name: email.split('@')[0], displayName: 'Test User' });
    expect(res.body.passkeys).toEqual([
      { id: second.credential.idB64, name: 'Phone', providerName: 'Google Password Manager', createdAt: expect.any(String), lastUsedAt: expect.any(String), synced: true, device: expect.any(String), prfEnabled: null },
      expect.objectContaining({ providerName: null, synced: false }),
    ]);
    expectProblem(await supertest(h.host).get('/passwordless-passkeys'), 401, 'not_signed_in');
  });

  it('renames one: 1 to 64 characters, only the user\'s own', async () => {
    const h = hostApp();
    const { credential } = await signUp(h);
    const other = await signUp(hostApp());
    expect((await h.agent.post('/passwordless-passkeys/rename').send({ id: credential.idB64, name: '  Laptop  ' })).status).toBe(204);
    expect((await h.agent.get('/passwordless-passkeys')).body.passkeys[0].name).toBe('Laptop');
    for (const name of ['', '   ', 'x'.repeat(65)]) expectProblem(await h.agent.post('/passwordless-passkeys/rename').send({ id: credential.idB64, name }), 400, 'validation_failed');
    expectProblem(await h.agent.post('/passwordless-passkeys/rename').send({ id: other.credential.idB64, name: 'mine' }), 404, 'unknown_passkey');
    expect((await h.auth.client.listCredentials(other.user.id))[0].nickname).not.toBe('mine');
  });

  it('refuses a name with a bidi override or another hidden character, and keeps the old one', async () => {
    const h = hostApp();
    const { credential } = await signUp(h);
    await h.agent.post('/passwordless-passkeys/rename').send({ id: credential.idB64, name: 'Laptop' }).expect(204);
    // Before, 'Laptop\u202Egnp.exe' was stored, and read "Laptopexe.png" in every list, mail and webhook.
    for (const name of ['Laptop\u202Egnp.exe', 'Lap\u200Btop', 'Lap\u0000top']) {
      const refused = await h.agent.post('/passwordless-passkeys/rename').send({ id: credential.idB64, name });
      expectProblem(refused, 400, 'validation_failed');
      expect(refused.body.errors.name[0]).toMatch(/invisible formatting characters/);
    }
    expect((await h.auth.client.listCredentials(h.auth.userIdOf((await h.agent.get('/me')).body)!))[0].nickname).toBe('Laptop');
  });

  it('deletes one only after a step-up, then it is gone at the service; the last one stays unless allowed', async () => {
    const h = hostApp();
    const { credential, user, email } = await signUp(h);
    const add = await h.agent.post('/passwordless-add-credential').send({});
    const second = await finishRegistration(service, app, add.body.token);
    const refused = await h.agent.post('/passwordless-passkeys/delete').send({ id: second.credential.idB64 });
    expectProblem(refused, 401, 'step_up_required');
    expect(refused.body.purpose).toBe('step-up');

    expect((await h.agent.post('/passwordless-step-up').send({ token: await stepUpToken(credential, user.id) })).status).toBe(204);
    expect((await h.agent.post('/passwordless-passkeys/delete').send({ id: second.credential.idB64 })).status).toBe(204);
    expect((await h.auth.client.listCredentials(user.id)).map((c) => c.descriptor.id)).toEqual([credential.idB64]);
    expect((await signIn(service, app, second.credential, { alias: email })).complete.status).toBe(400);

    expectProblem(await h.agent.post('/passwordless-passkeys/delete').send({ id: credential.idB64 }), 409, 'last_passkey');
    const lenient = hostApp({ allowDeletingLastPasskey: true });
    const someone = await signUpOn(service, app, lenient);
    await lenient.agent.post('/passwordless-step-up').send({ token: await stepUpToken(someone.credential, someone.user.id) }).expect(204);
    expect((await lenient.agent.post('/passwordless-passkeys/delete').send({ id: someone.credential.idB64 })).status).toBe(204);
  });
});

describe('step-up', () => {
  it('records a step-up of the signed-in user, keeping the session id', async () => {
    const h = hostApp();
    const { credential, user, login } = await signUp(h);
    const before = sessionCookie(login);
    h.host.post('/sensitive', h.auth.requireStepUp({ maxAge: 60 }), (_req, res) => void res.status(204).end());
    h.host.use(h.auth.handleErrors);
    expectProblem(await h.agent.post('/sensitive').set(json), 401, 'step_up_required');
    const stepped = await h.agent.post('/passwordless-step-up').send({ token: await stepUpToken(credential, user.id) });
    expect(stepped.status).toBe(204);
    expect(sessionCookie(stepped)).toBeUndefined(); // no new session: the cookie stays the one of the sign-in
    expect(before).toBeDefined();
    expect((await h.agent.post('/sensitive').set(json)).status).toBe(204);
  });

  it('refuses a sign-in token, another user\'s step-up, and a step-up older than maxAge', async () => {
    const h = hostApp();
    const { credential, user } = await signUp(h);
    const other = await signUp(hostApp());
    h.host.post('/sensitive', h.auth.requireStepUp({ maxAge: 300 }), (_req, res) => void res.status(204).end());
    h.host.use(h.auth.handleErrors);

    const signinToken = (await signIn(service, app, credential, { userId: user.id })).complete.body.token;
    expectProblem(await h.agent.post('/passwordless-step-up').send({ token: signinToken }), 401, 'token_not_accepted');
    const othersToken = await stepUpToken(other.credential, other.user.id);
    expectProblem(await h.agent.post('/passwordless-step-up').send({ token: othersToken }), 401, 'token_not_accepted');
    expectProblem(await h.agent.post('/sensitive').set(json), 401, 'step_up_required');

    await h.agent.post('/passwordless-step-up').send({ token: await stepUpToken(credential, user.id) }).expect(204);
    expect((await h.agent.post('/sensitive').set(json)).status).toBe(204);
    clock.now += 301_000;
    try {
      expectProblem(await h.agent.post('/sensitive').set(json), 401, 'step_up_required');
    } finally {
      clock.now -= 301_000;
    }
  });

  it('asks the signed-out to sign in first', async () => {
    const h = hostApp();
    expectProblem(await supertest(h.host).post('/passwordless-step-up').send({ token: 'verify_x' }), 401, 'not_signed_in');
  });
});

describe('recovery by email', () => {
  /** How much the service has mailed so far (its MAIL_FILE, made by the first mail). */
  const mailLength = () => (existsSync(service.mailFile) ? readFileSync(service.mailFile, 'utf8').length : 0);

  /** The recovery link mailed to `email`, as path and query on the host, once it is in the service's MAIL_FILE. */
  const recoveryLink = (email: string, after = 0) =>
    eventually(`a recovery mail to ${email}`, () => {
      if (!existsSync(service.mailFile)) return undefined;
      const mail = readFileSync(service.mailFile, 'utf8').slice(after);
      const at = mail.lastIndexOf(email);
      const link = at < 0 ? undefined : /https?:\/\/[^\s)>"]+passwordless-recover\?[^\s)>"]+/.exec(mail.slice(at))?.[0];
      if (!link) return undefined;
      const url = new URL(link.replace(/&amp;/g, '&'));
      return url.pathname + url.search;
    });

  it('answers 202 alike for known and unknown addresses, mails only the known one, and its link signs in once', async () => {
    const h = hostApp({ recovery: true });
    const { email, user, credential } = await signUp(h);
    const unknown = newEmail();
    const mailBefore = mailLength();
    const known = await supertest(h.host).post('/passwordless-recover').send({ email: email.toUpperCase() });
    const stranger = await supertest(h.host).post('/passwordless-recover').send({ email: unknown });
    expect([known.status, known.body, stranger.status, stranger.body]).toEqual([202, { recoverySent: true }, 202, { recoverySent: true }]);

    const link = await recoveryLink(email, mailBefore);
    expect(readFileSync(service.mailFile, 'utf8').slice(mailBefore)).not.toContain(unknown);
    // A mail scanner fetching the link changes nothing.
    const opened = await supertest(h.host).get(link);
    expect(opened.status).toBe(303);
    const fragment = new URLSearchParams(new URL(opened.headers.location, 'http://host').hash.slice(1));
    const body = { recovery: fragment.get('passwordless-recovery'), token: fragment.get('token') };

    const browser = supertest.agent(h.host);
    const confirmed = await browser.post('/passwordless-recover/confirm').send(body);
    expect(confirmed.status).toBe(200);
    expect(confirmed.body).toMatchObject({ id: user.id, email, recovered: true });
    expect((await browser.get('/me')).body.id).toBe(user.id);
    // ... and a new passkey can then be added, which steps up in this session at once; the
    // passkey the user had, made minutes ago, does not (it is not yet newPasskeyStepUpDelaySeconds old).
    const add = await browser.post('/passwordless-add-credential').send({});
    expect(add.body.token).toMatch(/^register_/);
    const added = await finishRegistration(service, app, add.body.token);
    await browser.post('/passwordless-add-credential/complete').send({ token: added.complete.body.token }).expect(200);
    expectProblem(await browser.post('/passwordless-step-up').send({ token: await stepUpToken(credential, user.id) }), 403, 'passkey_too_new');
    await browser.post('/passwordless-step-up').send({ token: await stepUpToken(added.credential, user.id) }).expect(204);

    const again = await supertest.agent(h.host).post('/passwordless-recover/confirm').send(body);
    expectProblem(again, 400, 'invalid_link');
    expect(again.body.detail).toMatch(/used already/);
  });

  it('refuses a link whose two tokens are not of one user', async () => {
    const h = hostApp({ recovery: true });
    const a = await signUp(h);
    const b = await signUpOn(service, app, hostOn(service, app, { now: () => clock.now, recovery: true }, h.users));
    let mailAt = mailLength();
    await supertest(h.host).post('/passwordless-recover').send({ email: a.email }).expect(202);
    const linkA = new URLSearchParams((await recoveryLink(a.email, mailAt)).split('?')[1]);
    mailAt = mailLength();
    await supertest(h.host).post('/passwordless-recover').send({ email: b.email }).expect(202);
    const linkB = new URLSearchParams((await recoveryLink(b.email, mailAt)).split('?')[1]);
    expectProblem(await supertest(h.host).post('/passwordless-recover/confirm').send({ recovery: linkA.get('recovery'), token: linkB.get('token') }), 400, 'invalid_link');
  });

  it('cannot be locked: repeats for one address are absorbed (202, one link mailed), floods refused per client address', async () => {
    const h = hostOn(service, app, { recovery: true }, undefined, { trustProxy: true });
    const { email } = await signUp(h);
    const mailBefore = mailLength();
    const ask = (client: string) => supertest(h.host).post('/passwordless-recover').set('X-Forwarded-For', client).send({ email });
    // Three strangers ask for the user's link from three addresses; before, the owner's own request was then 429 for an hour.
    const strangers = [(await ask('198.51.100.1')).status, (await ask('198.51.100.2')).status, (await ask('198.51.100.3')).status];
    const own = await ask('203.0.113.7');
    expect({ strangers, own: own.status, body: own.body }).toEqual({ strangers: [202, 202, 202], own: 202, body: { recoverySent: true } });
    // One link reached the mailbox, not four; repeats were absorbed before the answer, so no other is on its way.
    await recoveryLink(email, mailBefore);
    expect(readFileSync(service.mailFile, 'utf8').slice(mailBefore).split(`To: ${email}`).length - 1).toBe(1);

    const flooded = hostApp({ recovery: true, throttle: { recover: 2 } });
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push((await supertest(flooded.host).post('/passwordless-recover').send({ email: newEmail() })).status);
    expect(answers).toEqual([202, 202, 429]);
  });

  it('needs a store that finds users by email', () => {
    const full = new InMemoryUserStore();
    const users = { create: full.create.bind(full), findById: full.findById.bind(full), remove: full.remove.bind(full) };
    expect(() => hostOn(service, app, { recovery: true }, users)).toThrow(/recovery.*findByEmail/);
  });
});
