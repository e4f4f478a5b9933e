/**
 * The middleware's automatic passkey upgrade (issue 35): a host that signs users in with a
 * password calls `auth.notePasswordSignIn(req)`, and for a few minutes after, once, the page may
 * ask `POST /passwordless-upgrade` for a token whose ceremony the browser begins as a conditional
 * create. Against a real service process, the host driven over HTTP.
 */
import { randomUUID } from 'node:crypto';
import express from 'express';
import session from 'express-session';
import supertest from 'supertest';
import type { PasskeyAddedEvent, PasswordlessOptions } from '../../src/express';
import { finishRegistration, ORIGIN, RPID, signIn } from '../support/ceremonies';
import { eventually } from '../support/eventually';
import { expectProblem, hostApp as hostOn, signUp, type Host } from '../support/hostApp';
import { startServiceProcess, type ServiceProcess } from '../support/serviceProcess';
import { createCredential } from '../support/softwareAuthenticator';
import type { TestApp } from '../support/testService';

jest.setTimeout(60_000);

let service: ServiceProcess;
let app: TestApp;

beforeAll(async () => {
  service = await startServiceProcess();
  app = await service.createApp();
});
afterAll(() => service?.stop());

const PASSWORD = 'correct horse battery staple';
const clock = { now: Date.now() };

/** The test host plus a password login of its own, as a passport-local app has: `req.logIn`, then `notePasswordSignIn`. */
function passwordHost(options: Partial<PasswordlessOptions> = {}): Host & { addPasswordUser(email: string): Promise<string> } {
  // The session list reads the store express-session keeps the sessions in.
  const h = hostOn(service, app, { now: () => clock.now, ...options }, undefined, { sessionStore: options.sessionStore as session.Store | undefined });
  const passwords = new Map<string, string>();
  h.host.post('/password-login', express.json(), async (req, res, next) => {
    const { email, password, note = true } = req.body as { email: string; password: string; note?: boolean };
    const id = passwords.get(email);
    if (!id || password !== PASSWORD) return void res.status(401).end();
    const user = await h.users.findById(id);
    req.logIn(user as Express.User, (error) => {
      if (error) return next(error);
      if (note) h.auth.notePasswordSignIn(req);
      res.json({ id });
    });
  });
  const addPasswordUser = async (email: string) => {
    const user = await h.users.create({ userId: randomUUID(), email, username: email.split('@')[0], displayName: 'Password User' });
    passwords.set(email, user.id);
    return user.id;
  };
  return Object.assign(h, { addPasswordUser });
}

const email = () => `pw${Math.random().toString(36).slice(2)}@example.com`;

/** What the browser module does with the token: begin as a conditional create, the authenticator makes the passkey without the user present. */
async function conditionalCreate(token: string) {
  const begin = await service.http.post('/register/begin').set('ApiKey', app.apiKey).send({ token, RPID, Origin: ORIGIN, mediation: 'conditional' });
  expect(begin.status).toBe(200);
  const { credential, response } = createCredential({ challenge: begin.body.data.challenge, rpId: RPID, origin: ORIGIN, userHandle: begin.body.data.user.id, userPresent: false });
  const complete = await service.http.post('/register/complete').set('ApiKey', app.apiKey).send({ session: begin.body.session, response, RPID, Origin: ORIGIN });
  expect(complete.status).toBe(200);
  return { credential, verifyToken: complete.body.token as string };
}

describe('POST /passwordless-upgrade', () => {
  it('answers a token right after notePasswordSignIn; the passkey it makes is reported through add-credential/complete and signs in', async () => {
    const added: PasskeyAddedEvent[] = [];
    const h = passwordHost({ onPasskeyAdded: (event) => void added.push(event) });
    const address = email();
    const userId = await h.addPasswordUser(address);
    await h.agent.post('/password-login').send({ email: address, password: PASSWORD }).expect(200);

    const upgrade = await h.agent.post('/passwordless-upgrade').send({});
    expect(upgrade.status).toBe(200);
    const made = await conditionalCreate(upgrade.body.token);
    const reported = await h.agent.post('/passwordless-add-credential/complete').send({ token: made.verifyToken });
    expect(reported.status).toBe(200);
    expect(added).toEqual([expect.objectContaining({ userId, passkey: expect.objectContaining({ id: made.credential.idB64 }), via: 'add' })]);
    const listed = await h.auth.client.listCredentials(userId);
    expect(listed.map((c) => [c.descriptor.id, c.upgrade])).toEqual([[made.credential.idB64, true]]);

    // Next time, the passkey signs in (as autofill would).
    const other = supertest.agent(h.host);
    const login = await other.post('/passwordless-login').send({ token: (await signIn(service, app, made.credential)).complete.body.token });
    expect([login.status, login.body.id]).toEqual([200, userId]);
  });

  it('is offered once per password sign-in', async () => {
    const h = passwordHost();
    const address = email();
    await h.addPasswordUser(address);
    await h.agent.post('/password-login').send({ email: address, password: PASSWORD }).expect(200);
    expect((await h.agent.post('/passwordless-upgrade').send({})).status).toBe(200);
    expectProblem(await h.agent.post('/passwordless-upgrade').send({}), 403, 'upgrade_not_offered');
    await h.agent.post('/password-login').send({ email: address, password: PASSWORD }).expect(200);
    expect((await h.agent.post('/passwordless-upgrade').send({})).status).toBe(200);
  });

  it('is refused without a sign-in, without a noted password sign-in, and after a passkey sign-in', async () => {
    const h = passwordHost();
    expectProblem(await h.agent.post('/passwordless-upgrade').send({}), 401, 'not_signed_in');
    const address = email();
    await h.addPasswordUser(address);
    // The host forgot notePasswordSignIn: no upgrade (a session alone proves nothing fresh).
    await h.agent.post('/password-login').send({ email: address, password: PASSWORD, note: false }).expect(200);
    expectProblem(await h.agent.post('/passwordless-upgrade').send({}), 403, 'upgrade_not_offered');

    const passkeyUser = passwordHost();
    await signUp(service, app, passkeyUser);
    expectProblem(await passkeyUser.agent.post('/passwordless-upgrade').send({}), 403, 'upgrade_not_offered');
  });

  it('is refused once the password sign-in is older than freshSessionSeconds', async () => {
    const h = passwordHost({ freshSessionSeconds: 120 });
    const address = email();
    await h.addPasswordUser(address);
    await h.agent.post('/password-login').send({ email: address, password: PASSWORD }).expect(200);
    clock.now += 121_000;
    try {
      expectProblem(await h.agent.post('/passwordless-upgrade').send({}), 403, 'upgrade_not_offered');
    } finally {
      clock.now -= 121_000;
    }
  });

  it('keeps the other guards: a cross-site post and a post that is not JSON are refused before anything is spent', async () => {
    const h = passwordHost();
    const address = email();
    await h.addPasswordUser(address);
    await h.agent.post('/password-login').send({ email: address, password: PASSWORD }).expect(200);
    expectProblem(await h.agent.post('/passwordless-upgrade').set('Sec-Fetch-Site', 'cross-site').send({}), 403, 'cross_site_request');
    expectProblem(await h.agent.post('/passwordless-upgrade').set('Content-Type', 'text/plain').send('{}'), 415, 'unsupported_media_type');
    expect((await h.agent.post('/passwordless-upgrade').send({})).status).toBe(200);
  });

  it('throws when notePasswordSignIn is called without a signed-in user (before req.logIn)', () => {
    const h = passwordHost();
    expect(() => h.auth.notePasswordSignIn({ isAuthenticated: () => false } as unknown as express.Request)).toThrow(/after req.logIn/);
  });
});

describe('adding a passkey in a password session needs a fresh password proof, spent once', () => {
  it('refuses add-credential to a password session without a fresh proof, whether or not the user has a passkey', async () => {
    const h = passwordHost({ freshSessionSeconds: 120 });
    const address = email();
    await h.addPasswordUser(address);
    // A session the middleware did not open, and no proof noted (the cookie of any password session, however old).
    await h.agent.post('/password-login').send({ email: address, password: PASSWORD, note: false }).expect(200);
    // Before, this answered a registration token: the user had no passkey, so nothing was asked.
    expectProblem(await h.agent.post('/passwordless-add-credential').send({}), 401, 'fresh_sign_in_required');
    // A noted password sign-in that has gone stale proves nothing either.
    await h.agent.post('/password-login').send({ email: address, password: PASSWORD }).expect(200);
    clock.now += 121_000;
    try {
      expectProblem(await h.agent.post('/passwordless-add-credential').send({}), 401, 'fresh_sign_in_required');
    } finally {
      clock.now -= 121_000;
    }
  });

  it('gives one token for a fresh password proof, through add-credential or the upgrade, then neither', async () => {
    const h = passwordHost();
    const address = email();
    await h.addPasswordUser(address);
    await h.agent.post('/password-login').send({ email: address, password: PASSWORD }).expect(200);
    const add = await h.agent.post('/passwordless-add-credential').send({});
    expect(add.body.token).toMatch(/^register_/);
    // Spent: before, a user without a passkey got a token here every time.
    expectProblem(await h.agent.post('/passwordless-add-credential').send({}), 401, 'fresh_sign_in_required');
    expectProblem(await h.agent.post('/passwordless-upgrade').send({}), 403, 'upgrade_not_offered');
    // The token it gave makes the passkey (modally); the user then has one, so a step-up is what is asked next.
    const made = await finishRegistration(service, app, add.body.token);
    expect(made.complete.status).toBe(200);
    expectProblem(await h.agent.post('/passwordless-add-credential').send({}), 401, 'step_up_required');
  });

  it('answers exactly one of racing requests after one password sign-in with a token, across the upgrade and add-credential', async () => {
    const h = passwordHost();
    const address = email();
    await h.addPasswordUser(address);
    await h.agent.post('/password-login').send({ email: address, password: PASSWORD }).expect(200);
    // Every request is sent before any answer is read: they all load the session with the proof in it.
    const upgrades = await Promise.all([0, 1, 2].map(() => h.agent.post('/passwordless-upgrade').send({})));
    // Before, every one answered 200 with a token.
    expect(upgrades.map((r) => r.status).sort()).toEqual([200, 403, 403]);
    for (const refused of upgrades.filter((r) => r.status === 403)) expectProblem(refused, 403, 'upgrade_not_offered');

    await h.agent.post('/password-login').send({ email: address, password: PASSWORD }).expect(200);
    const mixed = await Promise.all([h.agent.post('/passwordless-upgrade').send({}), h.agent.post('/passwordless-add-credential').send({}), h.agent.post('/passwordless-add-credential').send({})]);
    expect(mixed.filter((r) => r.status === 200)).toHaveLength(1);
    expect(mixed.filter((r) => r.status === 200)[0].body.token).toMatch(/^register_/);
  });
});

describe('a phished password', () => {
  it('makes at most one passkey, which the owner hears of though its browser never reports it, and which steps up nowhere for an hour', async () => {
    const added: PasskeyAddedEvent[] = [];
    const store = new session.MemoryStore();
    // Registration tokens that live 5 s, so that the middleware looks for the passkey 7 s after the token was made.
    const h = passwordHost({ register: { expiration: '00:00:05' }, sessionStore: store, onPasskeyAdded: (event) => void added.push(event) });
    const address = email();
    const userId = await h.addPasswordUser(address);
    // The owner is signed in elsewhere with their password.
    const owner = supertest.agent(h.host);
    await owner.post('/password-login').send({ email: address, password: PASSWORD, note: false }).expect(200);

    // The attacker signs in with the phished password, takes the upgrade token, and makes a passkey without telling the host.
    const attacker = supertest.agent(h.host);
    await attacker.post('/password-login').send({ email: address, password: PASSWORD }).expect(200);
    const upgrade = await attacker.post('/passwordless-upgrade').send({});
    expect(upgrade.status).toBe(200);
    const made = await conditionalCreate(upgrade.body.token);
    expectProblem(await attacker.post('/passwordless-add-credential').send({}), 401, 'step_up_required');

    // Before, onPasskeyAdded never ran: only the browser's report told the host.
    const told = await eventually('onPasskeyAdded for the unreported passkey', () => (added.length > 0 ? added : undefined), 20_000);
    expect(told).toEqual([{ user: expect.objectContaining({ id: userId }), userId, passkey: { id: made.credential.idB64, name: '', device: expect.any(String) }, via: 'add' }]);
    // A late report tells the host nothing more.
    await attacker.post('/passwordless-add-credential/complete').send({ token: made.verifyToken }).expect(200);
    expect(added).toHaveLength(1);

    // The passkey signs in to a fresh session, but confirms nothing there: the owner's session stays.
    const fresh = supertest.agent(h.host);
    await fresh.post('/passwordless-login').send({ token: (await signIn(service, app, made.credential)).complete.body.token }).expect(200);
    expectProblem(await fresh.post('/passwordless-step-up').send({ token: (await signIn(service, app, made.credential, { userId, purpose: 'step-up' })).complete.body.token }), 403, 'passkey_too_new');
    expectProblem(await fresh.post('/passwordless-sessions/end').send({ allButThis: true }), 401, 'step_up_required');
    expect((await owner.get('/me')).status).toBe(200);
  });
});
