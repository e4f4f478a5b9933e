/**
 * The password-upgrade example (examples/password-upgrade: passport-local, scrypt hashes, users
 * seeded on the first run, the passkey middleware beside them) in a child process against a real
 * service process, driven through its routes without a browser: the software authenticator plays
 * the browser's part of the passkey ceremonies.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import supertest from 'supertest';
import { finishRegistration, ORIGIN, signIn } from '../support/ceremonies';
import { startExampleHost, type ExampleHost } from '../support/exampleHost';
import { expectProblem } from '../support/http';
import { startServiceProcess, type ServiceProcess } from '../support/serviceProcess';
import type { TestApp } from '../support/testService';

jest.setTimeout(60_000);

const ADA = { email: 'ada@example.com', password: 'analytical-engine-1843', displayName: 'Ada Lovelace' };
const GRACE = { email: 'grace@example.com', password: 'compiler-a0-1952', displayName: 'Grace Hopper' };
const SCRIPT = 'passwordUpgradeHostServer.mjs';

let service: ServiceProcess;
let app: TestApp;
let dataDir: string;
let host: ExampleHost;

beforeAll(async () => {
  service = await startServiceProcess();
  app = await service.createApp();
  dataDir = mkdtempSync(join(tmpdir(), 'pwl-password-upgrade-'));
  // The software authenticator makes its passkeys on ORIGIN: the host's pages are served there.
  host = await startExampleHost(service.url, app, { Passwordless__Origins: ORIGIN }, { script: SCRIPT, dataDir });
});
afterAll(async () => {
  await host?.stop();
  await service?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

/** The users table as the host keeps it. */
function usersInDatabase(): Array<{ id: string; email: string; password_hash: string | null }> {
  const db = new Database(join(dataDir, 'host.db'), { readonly: true });
  try {
    return db.prepare('SELECT id, email, password_hash FROM users ORDER BY email').all() as Array<{ id: string; email: string; password_hash: string | null }>;
  } finally {
    db.close();
  }
}

/** The page's password sign-in: JSON, as the page's script posts it. */
const passwordSignIn = (agent: ReturnType<typeof supertest.agent>, email: string, password: string) => agent.post('/login').send({ email, password });

/** The user's passkeys at the service (the private API's list). */
async function credentialsAtService(userId: string): Promise<Array<{ descriptor: { id: string }; upgrade: boolean }>> {
  const res = await fetch(`${service.url}/credentials/list?userId=${encodeURIComponent(userId)}`, { headers: { ApiSecret: app.apiSecret } });
  expect(res.status).toBe(200);
  return (await res.json()) as Array<{ descriptor: { id: string }; upgrade: boolean }>;
}

describe('the password-upgrade example', () => {
  it('seeds its password users on the first run, each with a random id and a scrypt hash, never the password', () => {
    expect(host.output()).toContain('seeded 2\n');
    const users = usersInDatabase();
    expect(users.map((u) => u.email)).toEqual([ADA.email, GRACE.email]);
    for (const [user, seed] of [[users[0], ADA], [users[1], GRACE]] as const) {
      expect(user.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(user.password_hash).toMatch(/^scrypt\$131072\$8\$1\$[\w-]{22}\$[\w-]{43}$/);
      expect(user.password_hash).not.toContain(seed.password);
    }
  });

  it('signs in with the right password only: a wrong password and an unknown address get the same 401, and no session', async () => {
    const agent = supertest.agent(host.url);
    const wrong = await passwordSignIn(agent, ADA.email, 'not-the-password');
    const unknown = await passwordSignIn(agent, 'nobody@example.com', ADA.password);
    expectProblem(wrong, 401, 'invalid_credentials');
    expect(unknown.body).toEqual(wrong.body);
    expect(wrong.headers['set-cookie']).toBeUndefined();
    expectProblem(await agent.get('/api/me'), 401, 'not_signed_in');

    const right = await passwordSignIn(agent, ADA.email.toUpperCase(), ADA.password);
    expect({ status: right.status, body: right.body }).toEqual({ status: 200, body: { id: expect.any(String), email: ADA.email, username: ADA.email, displayName: ADA.displayName } });
    expect((await agent.get('/api/me')).body).toEqual(right.body);
    // The passkey routes know the user a password signed in: no passkey yet.
    const passkeys = await agent.get('/passwordless-passkeys');
    expect({ status: passkeys.status, passkeys: passkeys.body.passkeys, userId: passkeys.body.user?.userId }).toEqual({ status: 200, passkeys: [], userId: right.body.id });
  });

  it('refuses a password sign-in posted as a form or by another site, before checking any password', async () => {
    const form = await supertest(host.url).post('/login').type('form').send({ email: ADA.email, password: ADA.password });
    expectProblem(form, 415, 'unsupported_media_type');
    const crossSite = await supertest(host.url).post('/login').set('Sec-Fetch-Site', 'cross-site').send({ email: ADA.email, password: ADA.password });
    expectProblem(crossSite, 403, 'cross_site_request');
    expect([form, crossSite].map((r) => r.headers['set-cookie'])).toEqual([undefined, undefined]);
  });

  it('gives a password user a passkey after the password sign-in, signs in with it in a new session, and the password still works', async () => {
    const agent = supertest.agent(host.url);
    const { body: user } = await passwordSignIn(agent, GRACE.email, GRACE.password);
    // A first passkey needs no step-up: there is no passkey to step up with.
    const add = await agent.post('/passwordless-add-credential').send({});
    expect(add.status).toBe(200);
    const made = await finishRegistration(service, app, add.body.token, { nickname: 'Laptop' });
    expect(made.complete.status).toBe(200);
    expect((await agent.post('/passwordless-add-credential/complete').send({ token: made.complete.body.token })).status).toBe(200);
    expect((await credentialsAtService(user.id)).map((c) => c.descriptor.id)).toEqual([made.credential.idB64]);
    expect((await agent.post('/passwordless-logout').send({})).status).toBe(204);

    const withPasskey = supertest.agent(host.url);
    const signin = await signIn(service, app, made.credential);
    expect(signin.complete.status).toBe(200);
    const login = await withPasskey.post('/passwordless-login').send({ token: signin.complete.body.token });
    expect({ status: login.status, body: login.body }).toEqual({ status: 200, body: user });

    const withPassword = supertest.agent(host.url);
    expect((await passwordSignIn(withPassword, GRACE.email, GRACE.password)).status).toBe(200);
    expect((await withPassword.get('/api/me')).body).toEqual(user);
  });

  it('notes each password sign-in (notePasswordSignIn): one upgrade token per password sign-in, none for a passkey sign-in or without one', async () => {
    const agent = supertest.agent(host.url);
    expectProblem(await agent.post('/passwordless-upgrade').send({}), 401, 'not_signed_in');
    const { body: user } = await passwordSignIn(agent, ADA.email, ADA.password);
    const granted = await agent.post('/passwordless-upgrade').send({});
    expect({ status: granted.status, token: granted.body.token }).toEqual({ status: 200, token: expect.stringMatching(/^register_/) });
    expectProblem(await agent.post('/passwordless-upgrade').send({}), 403, 'upgrade_not_offered');

    // The browser's ceremony with the token (here a modal one, with the user present), reported to the host.
    const made = await finishRegistration(service, app, granted.body.token, { nickname: 'Upgraded' });
    expect(made.complete.status).toBe(200);
    expect((await agent.post('/passwordless-add-credential/complete').send({ token: made.complete.body.token })).status).toBe(200);
    expect((await credentialsAtService(user.id)).map((c) => c.descriptor.id)).toContain(made.credential.idB64);

    // A passkey sign-in is not a password sign-in: no upgrade for that session.
    const withPasskey = supertest.agent(host.url);
    const signin = await signIn(service, app, made.credential);
    expect((await withPasskey.post('/passwordless-login').send({ token: signin.complete.body.token })).status).toBe(200);
    expectProblem(await withPasskey.post('/passwordless-upgrade').send({}), 403, 'upgrade_not_offered');
  });

  it('restarted on the same data, keeps its users and seeds none; a client address gets a few password attempts a minute', async () => {
    const before = usersInDatabase();
    await host.stop();
    host = await startExampleHost(service.url, app, { Passwordless__Origins: ORIGIN, PASSWORD_ATTEMPTS: '2' }, { script: SCRIPT, dataDir });
    expect(host.output()).toContain('seeded 0\n');
    expect(usersInDatabase()).toEqual(before);

    const agent = supertest.agent(host.url);
    expectProblem(await passwordSignIn(agent, ADA.email, 'guess-1'), 401, 'invalid_credentials');
    expect((await passwordSignIn(agent, ADA.email, ADA.password)).status).toBe(200);
    const third = await passwordSignIn(supertest.agent(host.url), ADA.email, ADA.password);
    expectProblem(third, 429, 'too_many_requests');
    expect(third.headers['set-cookie']).toBeUndefined();
  });
});
