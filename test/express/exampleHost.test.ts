/**
 * The example host app (examples/express-host: createHost with its SQLite users and sessions),
 * driven through its JSON routes without a browser: the software authenticator plays the
 * browser's part of each ceremony against a real service process, as the browser client would.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import supertest from 'supertest';
import { finishRegistration, ORIGIN, signIn } from '../support/ceremonies';
import { eventually } from '../support/eventually';
import { startExampleHost, type ExampleHost } from '../support/exampleHost';
import { expectProblem } from '../support/http';
import { startServiceProcess, type ServiceProcess } from '../support/serviceProcess';
import type { TestApp } from '../support/testService';

jest.setTimeout(60_000);

let service: ServiceProcess;
let app: TestApp;
let host: ExampleHost;

beforeAll(async () => {
  service = await startServiceProcess({ MAGIC_LINK_NEW_APP_PERIOD: '00:00:00' });
  app = await service.createApp();
  // The software authenticator makes its passkeys on ORIGIN: the host's pages are served there.
  // Under the umask most shells have: the host's users and sessions must still be its own user's only.
  host = await startExampleHost(service.url, app, { Passwordless__Origins: ORIGIN, EXAMPLE_UMASK: '022' });
});
afterAll(async () => {
  await host?.stop();
  await service?.stop();
});

let counter = 0;
const newEmail = () => `ada${++counter}-${Date.now()}@example.com`;

/** How much the service has mailed so far. */
const mailLength = () => (existsSync(service.mailFile) ? readFileSync(service.mailFile, 'utf8').length : 0);

/** The path and query of the first link of `kind` the service mailed to `email` after `after` characters of MAIL_FILE (no SMTP); sign-up mails go out after the answer. */
function mailedLink(email: string, after = 0, kind = 'passwordless-verify-email'): Promise<string> {
  return eventually(`a ${kind} link for ${email}`, () => {
    const mail = existsSync(service.mailFile) ? readFileSync(service.mailFile, 'utf8').slice(after) : '';
    const at = mail.indexOf(`To: ${email}`);
    const link = at < 0 ? undefined : new RegExp(`https?://[^\\s)>"]+${kind}[^\\s)>"]+`).exec(mail.slice(at).split(/^---$/m)[0])?.[0];
    if (!link) return undefined;
    const url = new URL(link.replace(/&amp;/g, '&'));
    return url.pathname + url.search;
  });
}

/**
 * The example's sign-up: `POST /passwordless-register` mails a link; the link (opened in `agent`)
 * hands the page its values; the page posts them and gets a registration token; the passkey
 * ceremony at the service. Nothing is signed in yet.
 */
async function signUp(agent: ReturnType<typeof supertest.agent>, email = newEmail()) {
  const before = mailLength();
  const res = await agent.post('/passwordless-register').send({ email, username: 'ada', displayName: 'Ada Lovelace' });
  expect({ status: res.status, body: res.body }).toEqual({ status: 202, body: { verificationSent: true } });
  const opened = await agent.get(await mailedLink(email, before));
  expect(opened.status).toBe(303);
  const fragment = new URLSearchParams(new URL(opened.headers.location, host.url).hash.slice(1));
  const verified = await agent.post('/passwordless-verify-email').send({ signup: fragment.get('passwordless-signup'), token: fragment.get('token'), username: 'ada', displayName: 'Ada Lovelace' });
  expect({ status: verified.status, body: verified.body }).toEqual({ status: 200, body: { token: expect.stringMatching(/^register_/), email } });
  const registration = await finishRegistration(service, app, verified.body.token, { nickname: 'Laptop' });
  expect(registration.complete.status).toBe(200);
  return { email, credential: registration.credential, verifyToken: registration.complete.body.token as string };
}

function sessionCookie(res: supertest.Response): string | undefined {
  const cookies = ([] as string[]).concat(res.headers['set-cookie'] ?? []);
  return cookies.find((c) => c.startsWith('connect.sid='))?.split(';')[0];
}

describe('the example host app', () => {
  it('signs up by email: the mailed link starts the passkey ceremony; the user exists once it signs in, and the address is then taken', async () => {
    const agent = supertest.agent(host.url);
    const { email, verifyToken } = await signUp(agent);
    expect(verifyToken).toMatch(/^verify_/);
    expect((await agent.post('/passwordless-login').send({ token: verifyToken })).status).toBe(200);
    // A second sign-up with the address is answered alike, creates nothing, and mails its owner a sign-in (recovery) link.
    const before = mailLength();
    const again = await supertest.agent(host.url).post('/passwordless-register').send({ email, username: 'eve', displayName: 'Eve' });
    expect({ status: again.status, body: again.body }).toEqual({ status: 202, body: { verificationSent: true } });
    expect(await mailedLink(email, before, 'passwordless-recover')).toMatch(/^\/passwordless-recover\?recovery=/);
  });

  it("mails the user of each passkey added to or deleted from their account, shown in the dev mailbox", async () => {
    const agent = supertest.agent(host.url);
    const { email, verifyToken } = await signUp(agent);
    expect((await agent.post('/passwordless-login').send({ token: verifyToken })).status).toBe(200);
    // Minutes after the sign-up, a second passkey needs no step-up; the browser reports it once made.
    const add = await agent.post('/passwordless-add-credential').send({});
    expect(add.status).toBe(200);
    const second = await finishRegistration(service, app, add.body.token, { nickname: 'Phone' });
    expect((await agent.post('/passwordless-add-credential/complete').send({ token: second.complete.body.token })).status).toBe(200);
    const notice = await eventually('the host\'s mail', () => {
      const file = join(host.dataDir, 'host-mail.md');
      const mail = existsSync(file) ? readFileSync(file, 'utf8') : '';
      return mail.includes(`To: ${email}`) ? mail : undefined;
    });
    expect(notice).toMatch(/Subject: A passkey was added to your Passkeys example account\n\n"Phone" \(.+\) can now sign in/);
    expect((statSync(join(host.dataDir, 'host-mail.md')).mode & 0o777).toString(8)).toBe('600');
    const mailbox = await agent.get('/dev/mailbox');
    expect(mailbox.text).toContain('A passkey was added to your Passkeys example account');
  });

  it('signs in with the verify token of the sign-up: a session cookie, then /api/me answers the user and /api/passkeys lists the passkey', async () => {
    const agent = supertest.agent(host.url);
    const { email, credential, verifyToken } = await signUp(agent);

    const login = await agent.post('/passwordless-login').send({ token: verifyToken });
    expect({ status: login.status, body: login.body }).toEqual({ status: 200, body: { id: expect.any(String), email, username: 'ada', displayName: 'Ada Lovelace' } });
    expect(sessionCookie(login)).toBeDefined();

    const me = await agent.get('/api/me');
    expect({ status: me.status, body: me.body }).toEqual({ status: 200, body: login.body });
    const passkeys = await agent.get('/api/passkeys');
    expect({ status: passkeys.status, body: passkeys.body }).toEqual({
      status: 200,
      body: [{ id: credential.idB64, nickname: 'Laptop', device: expect.any(String), createdAt: expect.any(String), lastUsedAt: expect.any(String) }],
    });
  });

  it('signs out: the session ends, and /api/me is 401 again, even with the old cookie', async () => {
    const agent = supertest.agent(host.url);
    const { verifyToken } = await signUp(agent);
    const cookie = sessionCookie(await agent.post('/passwordless-login').send({ token: verifyToken }));
    expect((await agent.get('/api/me')).status).toBe(200);

    expect((await agent.post('/passwordless-logout').send({})).status).toBe(204);
    expectProblem(await agent.get('/api/me'), 401, 'not_signed_in');
    expectProblem(await supertest(host.url).get('/api/me').set('Cookie', cookie!), 401, 'not_signed_in');
    expectProblem(await agent.get('/api/passkeys'), 401, 'not_signed_in');
  });

  it('signs the same user in again with the passkey, in a new session', async () => {
    const first = supertest.agent(host.url);
    const { email, credential, verifyToken } = await signUp(first);
    expect((await first.post('/passwordless-login').send({ token: verifyToken })).status).toBe(200);
    const signin = await signIn(service, app, credential);
    expect(signin.complete.status).toBe(200);

    const agent = supertest.agent(host.url);
    expectProblem(await agent.get('/api/me'), 401, 'not_signed_in');
    expect((await agent.post('/passwordless-login').send({ token: signin.complete.body.token })).status).toBe(200);
    expect((await agent.get('/api/me')).body).toMatchObject({ email, username: 'ada' });
  });

  it('refuses a token the service does not know with the service\'s own problem, and opens no session', async () => {
    const agent = supertest.agent(host.url);
    const res = await agent.post('/passwordless-login').send({ token: 'verify_bm90IGEgdG9rZW4.1.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' });
    expectProblem(res, 400, 'invalid_token');
    expect(res.body.title).toMatch(/^The token you supplied was not valid/); // the service's words, not the host's
    expect(sessionCookie(res)).toBeUndefined();
    expectProblem(await agent.get('/api/me'), 401, 'not_signed_in');
  });

  it('keeps its users and sessions readable by its own user only, under umask 022', async () => {
    await signUp(supertest.agent(host.url));
    const modes = Object.fromEntries(['host.db', 'host.db-wal', 'host.db-shm'].map((name) => [name, (statSync(join(host.dataDir, name)).mode & 0o777).toString(8)]));
    expect(modes).toEqual({ 'host.db': '600', 'host.db-wal': '600', 'host.db-shm': '600' });
  });
});
