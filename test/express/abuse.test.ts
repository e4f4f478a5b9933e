/**
 * What an outsider could do to the middleware's routes, and what stops it: sign-up squatting,
 * visitor aliases, throttling, tokens from sibling origins or for other purposes, UserIdClaimType,
 * and same-site form posts. Each against a real service process.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import supertest from 'supertest';
import { InMemoryUserStore, UserExistsError, type LocalUser, type NewUser, type PasswordlessOptions, type UserStore } from '../../src/express';
import { finishRegistration, ORIGIN, signIn } from '../support/ceremonies';
import { eventually } from '../support/eventually';
import { expectProblem, hostApp as hostOn, newEmail, signUp as signUpOn, startSignUp as startSignUpOn, type Host, type HostAppOptions } from '../support/hostApp';
import { startServiceProcess, type ServiceProcess } from '../support/serviceProcess';
import type { TestApp } from '../support/testService';

jest.setTimeout(60_000);

let service: ServiceProcess;
let app: TestApp;

beforeAll(async () => {
  // Magic links to any address from the first minute (the sign-up verification mails).
  service = await startServiceProcess({ MAGIC_LINK_NEW_APP_PERIOD: '00:00:00' });
  app = await service.createApp();
});
afterAll(() => service?.stop());

const hostApp = (options: Partial<PasswordlessOptions> = {}, users?: UserStore, hostOptions?: HostAppOptions) => hostOn(service, app, options, users, hostOptions);
const startSignUp = (h: Host, email?: string, extra?: Record<string, unknown>) => startSignUpOn(service, app, h, email, extra);
const signUp = (h: Host, email?: string) => signUpOn(service, app, h, email);
const userIdOfOptions = (options: { user: { id: string } }) => Buffer.from(options.user.id, 'base64url').toString();
const usersIn = (h: Host) => (h.users as InMemoryUserStore).size;

describe('sign-up is pending until its passkey exists', () => {
  it('an abandoned sign-up leaves no user, even once its passkey was made', async () => {
    const h = hostApp();
    await h.agent.post('/passwordless-register').send({ email: newEmail(), username: 'gone' }).expect(200);
    await startSignUp(h);
    expect(usersIn(h)).toBe(0);
  });

  it('squatting: a claim on an address that never finishes does not stop its owner from signing up', async () => {
    const h = hostApp();
    const victim = newEmail();
    const squatter = supertest.agent(h.host);
    expect((await squatter.post('/passwordless-register').send({ email: victim, username: 'squatter' })).status).toBe(200);
    const owner = await signUp(h, victim);
    expect(owner.user.email).toBe(victim);
    expect(usersIn(h)).toBe(1);
  });

  it("a pending sign-up's token does not sign in from another session", async () => {
    const h = hostApp();
    const { verifyToken } = await startSignUp(h);
    expectProblem(await supertest(h.host).post('/passwordless-login').send({ token: verifyToken }), 401, 'token_not_accepted');
    expect(usersIn(h)).toBe(0);
  });

  it('visitor aliases are refused, so the victim\'s address never signs in to the squatter\'s account', async () => {
    const h = hostApp();
    const victim = newEmail();
    const refused = await h.agent.post('/passwordless-register').send({ email: newEmail(), username: 'squatter', aliases: [victim] });
    expectProblem(refused, 400, 'validation_failed');
    expect(Object.keys(refused.body.errors)).toEqual(['aliases']);
    // The squatter completes a sign-up of their own; the victim's address is no alias of it.
    const squatter = await signUp(h);
    expect(await signIn(service, app, squatter.credential, { alias: victim }).then((r) => r.complete.status)).not.toBe(200);
    const owner = await signUp(hostApp(), victim);
    expect(owner.user.email).toBe(victim);
  });

  it('a host that opts in to visitor aliases gets them set once the user exists', async () => {
    const h = hostApp({ allowVisitorAliases: true });
    const extra = `alias-${Date.now()}@example.org`;
    const { credential, user } = await signUpOn(service, app, h, newEmail(), { aliases: [extra] });
    const signin = await signIn(service, app, credential, { alias: extra });
    expect(signin.complete.status).toBe(200);
    expect((await supertest(h.host).post('/passwordless-login').send({ token: signin.complete.body.token })).body.id).toBe(user.id);
  });

  it('the email-taken race: the later sign-up is 409 and its new passkey is deleted at the service', async () => {
    const h = hostApp();
    const email = newEmail();
    const first = await startSignUp(h, email);
    const other = hostOn(service, app, {}, h.users);
    const second = await startSignUp(other, email);
    expect((await h.agent.post('/passwordless-login').send({ token: first.verifyToken })).status).toBe(200);
    expectProblem(await other.agent.post('/passwordless-login').send({ token: second.verifyToken }), 409, 'user_exists');
    expect(usersIn(h)).toBe(1);
    expect(await h.auth.client.listCredentials(userIdOfOptions(second.options))).toEqual([]);
    expect(await h.auth.client.listCredentials(userIdOfOptions(first.options))).toHaveLength(1);
  });
});

describe('email-verified sign-up', () => {
  /** How much the service has mailed so far (its MAIL_FILE, made by the first mail). */
  const mailLength = () => (existsSync(service.mailFile) ? readFileSync(service.mailFile, 'utf8').length : 0);

  /** The mail to `email` after `after` characters of MAIL_FILE, once it arrived (sign-up mails go out after the answer). */
  const mailTo = (email: string, after = 0) =>
    eventually(`a mail to ${email}`, () => {
      const mail = existsSync(service.mailFile) ? readFileSync(service.mailFile, 'utf8').slice(after) : '';
      const at = mail.lastIndexOf(`To: ${email}`);
      return at < 0 ? undefined : mail.slice(at).split(/^---$/m)[0].replace(/&amp;/g, '&');
    });

  /** The last verification link the service mailed to `email` (MAIL_FILE, no SMTP configured). */
  async function mailedLink(email: string): Promise<string> {
    const link = /https?:\/\/[^\s)>"]+passwordless-verify-email[^\s)>"]+/.exec(await mailTo(email))?.[0];
    if (!link) throw new Error(`no verification link for ${email} in ${service.mailFile}`);
    return link;
  }

  it('is the default: a sign-up answers 202 and mails a link; turning it off is warned of at start-up', async () => {
    const h = hostApp({ verifyEmail: undefined });
    const email = newEmail();
    const start = await h.agent.post('/passwordless-register').send({ email, username: 'verified' });
    expect({ status: start.status, body: start.body }).toEqual({ status: 202, body: { verificationSent: true } });
    expect(await mailedLink(email)).toContain(ORIGIN);
    expect(h.logged.map((l) => l.message).join('\n')).not.toMatch(/verifyEmail is off/);
    expect(hostApp({ verifyEmail: false }).logged.map((l) => l.message).join('\n')).toMatch(/verifyEmail is off.*unverified claim/);
  });

  it('mails a link first; only the link starts the ceremony, in any browser, and only once', async () => {
    const h = hostApp({ verifyEmail: true });
    const email = newEmail();
    const start = await h.agent.post('/passwordless-register').send({ email, username: 'verified', displayName: 'Vera' });
    expect(start.status).toBe(202);
    expect(start.body).toEqual({ verificationSent: true });
    expect(usersIn(h)).toBe(0);

    // The link's GET changes nothing: it hands both values to the host's page in the fragment.
    const link = new URL(await mailedLink(email));
    expect(link.origin).toBe(ORIGIN);
    const opened = await supertest(h.host).get(`${link.pathname}${link.search}`);
    expect(opened.status).toBe(303);
    const fragment = new URLSearchParams(new URL(opened.headers.location, ORIGIN).hash.slice(1));
    expect(new URL(opened.headers.location, ORIGIN).pathname).toBe('/');

    const browser = supertest.agent(h.host);
    const verified = await browser.post('/passwordless-verify-email').send({ signup: fragment.get('passwordless-signup'), token: fragment.get('token'), username: 'verified', displayName: 'Vera' });
    expect(verified.status).toBe(200);
    expect(verified.body.email).toBe(email);
    const ceremony = await finishRegistration(service, app, verified.body.token);
    const login = await browser.post('/passwordless-login').send({ token: ceremony.complete.body.token });
    expect(login.status).toBe(200);
    expect(login.body).toMatchObject({ email, displayName: 'Vera' });

    // The same link again starts nothing.
    const again = await supertest.agent(h.host).post('/passwordless-verify-email').send({ signup: fragment.get('passwordless-signup'), token: fragment.get('token'), username: 'verified' });
    expectProblem(again, 400, 'invalid_link');
    expect(usersIn(h)).toBe(1);
  });

  /** Opens `link` as the mail's reader would: its GET hands the page the sign-up and the token, in the fragment. */
  async function linkValues(h: Host, link: string) {
    const url = new URL(link);
    const opened = await supertest(h.host).get(`${url.pathname}${url.search}`);
    const fragment = new URLSearchParams(new URL(opened.headers.location, ORIGIN).hash.slice(1));
    return { signup: fragment.get('passwordless-signup')!, token: fragment.get('token')! };
  }

  it("a stranger's sign-up with the owner's address decides nothing of the owner's account: the profile is the one the link's reader confirms", async () => {
    const h = hostApp({ verifyEmail: true, allowVisitorAliases: true });
    const owner = newEmail();
    const before = mailLength();
    // The stranger names the owner's address, with names and an alias of their choosing.
    const strangerAlias = `stranger-${Date.now()}@example.org`;
    await supertest(h.host).post('/passwordless-register').send({ email: owner, username: 'stranger', displayName: 'Not The Owner', aliases: [strangerAlias] }).expect(202);
    const link = await mailedLink(owner);
    // The owner's own sign-up minutes later is absorbed by the one-mail-per-address gate: the stranger's link is the one in the inbox.
    await supertest(h.host).post('/passwordless-register').send({ email: owner, username: 'owner', displayName: 'The Owner' }).expect(202);
    await mailTo(owner, before);
    expect(readFileSync(service.mailFile, 'utf8').slice(before).split(`To: ${owner}`).length - 1).toBe(1);

    // The link's page shows what the sign-up was started with; the owner confirms their own names.
    const values = await linkValues(h, link);
    expect(JSON.parse(Buffer.from(values.signup.split('.')[0], 'base64url').toString())).toMatchObject({ e: owner, n: 'stranger', d: 'Not The Owner' });
    // Without names the link starts nothing: the post must say whose profile it is.
    const nameless = await supertest(h.host).post('/passwordless-verify-email').send(values);
    expectProblem(nameless, 400, 'validation_failed');
    expect(Object.keys(nameless.body.errors)).toEqual(['username']);
    const browser = supertest.agent(h.host);
    const verified = await browser.post('/passwordless-verify-email').send({ ...values, username: 'owner', displayName: 'The Owner' });
    expect(verified.status).toBe(200);
    const ceremony = await finishRegistration(service, app, verified.body.token);
    // The passkey's own user entity carries the confirmed names too.
    expect(ceremony.begin.body.data.user).toMatchObject({ name: 'owner', displayName: 'The Owner' });
    const login = await browser.post('/passwordless-login').send({ token: ceremony.complete.body.token });
    // Before, the account was created as {username: 'stranger', displayName: 'Not The Owner'}, with the stranger's alias.
    expect(login.body).toMatchObject({ email: owner, username: 'owner', displayName: 'The Owner' });
    expect((await h.auth.client.listAliases(login.body.id)).length).toBe(1);
    expect((await signIn(service, app, ceremony.credential, { alias: strangerAlias }).catch(() => undefined))?.complete.status).not.toBe(200);
  });

  it('refuses an altered link, and a token of another sign-up', async () => {
    const h = hostApp({ verifyEmail: true });
    const email = newEmail();
    await h.agent.post('/passwordless-register').send({ email, username: 'a' }).expect(202);
    const link = new URL(await mailedLink(email));
    const signup = link.searchParams.get('signup')!;
    const token = link.searchParams.get('token')!;
    const [payload, mac] = signup.split('.');
    const altered = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), e: 'victim@example.com' })).toString('base64url');
    expectProblem(await supertest(h.host).post('/passwordless-verify-email').send({ signup: `${altered}.${mac}`, token, username: 'a' }), 400, 'invalid_link');
    // A token for another sign-up (another userId) does not verify this one.
    const email2 = newEmail();
    await h.agent.post('/passwordless-register').send({ email: email2, username: 'b' }).expect(202);
    const otherToken = new URL(await mailedLink(email2)).searchParams.get('token')!;
    expectProblem(await supertest(h.host).post('/passwordless-verify-email').send({ signup, token: otherToken, username: 'a' }), 400, 'invalid_link');
  });

  it('a taken address gets the same answer as a free one: nothing is created, and its owner is told by mail', async () => {
    const users = new InMemoryUserStore();
    const owner = await signUp(hostApp({}, users));
    const h = hostApp({ verifyEmail: true }, users);
    const before = mailLength();
    // Before, the owner got a verification link for the stranger's sign-up (and with verifyEmail off, login's 409 named the address as taken).
    const taken = await supertest(h.host).post('/passwordless-register').send({ email: owner.email, username: 'squatter' });
    const free = await supertest(h.host).post('/passwordless-register').send({ email: newEmail(), username: 'someone' });
    expect({ status: taken.status, body: taken.body, type: taken.headers['content-type'] }).toEqual({ status: free.status, body: free.body, type: free.headers['content-type'] });
    expect(taken.status).toBe(202);
    const told = await mailTo(owner.email, before);
    expect(told).toContain(`${ORIGIN}/#passwordless-account-exists=1`);
    expect(told).not.toContain('passwordless-verify-email');
    expect(usersIn(h)).toBe(1);

    // With recovery on, the owner's mail is a link that signs in once.
    const withRecovery = hostApp({ verifyEmail: true, recovery: true }, users);
    const again = mailLength();
    expect((await supertest(withRecovery.host).post('/passwordless-register').send({ email: owner.email, username: 'squatter' })).status).toBe(202);
    expect(await mailTo(owner.email, again)).toMatch(new RegExp(`${ORIGIN}/passwordless-recover\\?recovery=`));
  });

  it('absorbs repeats for one address, whoever asks: 202 every time, one mail', async () => {
    const h = hostApp({ verifyEmail: true }, undefined, { trustProxy: true });
    const email = newEmail();
    const before = mailLength();
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await supertest(h.host).post('/passwordless-register').set('X-Forwarded-For', `198.51.100.${i}`).send({ email, username: 'x' })).status);
    expect(statuses).toEqual([202, 202, 202, 202]);
    await mailTo(email, before);
    expect(readFileSync(service.mailFile, 'utf8').slice(before).split(`To: ${email}`).length - 1).toBe(1);
  });
});

describe('throttling per client address', () => {
  it('a junk-login flood gets 429 from the middleware, without spending the service\'s budget: a user behind it still signs in', async () => {
    // The service allows the site's one address 10 private calls a minute; the middleware 5 logins per visitor.
    const strict = await startServiceProcess({ RATE_LIMIT_PRIVATE_PER_IP: '10', RATE_LIMIT_WINDOW_SECONDS: '600' });
    try {
      const strictApp = await strict.createApp();
      const h = hostOn(strict, strictApp, { throttle: { signIn: 5 } }, undefined, { trustProxy: true });
      const user = await signUpOn(strict, strictApp, h);
      const attacker = '203.0.113.9';
      const statuses: number[] = [];
      for (let i = 0; i < 30; i++) {
        const junk = `verify_${randomBytes(48).toString('base64url')}`;
        statuses.push((await supertest(h.host).post('/passwordless-login').set('X-Forwarded-For', attacker).send({ token: junk })).status);
      }
      expect(statuses.slice(0, 5)).toEqual([400, 400, 400, 400, 400]);
      expect(new Set(statuses.slice(5))).toEqual(new Set([429]));
      const last = await supertest(h.host).post('/passwordless-login').set('X-Forwarded-For', attacker).send({ token: 'verify_x' });
      expectProblem(last, 429, 'rate_limited');
      expect(Number(last.headers['retry-after'])).toBeGreaterThan(0);

      const signin = await signIn(strict, strictApp, user.credential);
      const login = await supertest(h.host).post('/passwordless-login').set('X-Forwarded-For', '198.51.100.7').send({ token: signin.complete.body.token });
      expect(login.status).toBe(200);
      expect(login.body.id).toBe(user.user.id);
    } finally {
      await strict.stop();
    }
  });

  it('checks a token\'s shape before it costs a service call', async () => {
    const h = hostApp({}, undefined, { trustProxy: true });
    for (const token of ['verify_', 'verify_not base64!', `verify_${'a'.repeat(5000)}`, 'session_abc']) {
      expectProblem(await supertest(h.host).post('/passwordless-login').send({ token }), 400, 'invalid_token');
    }
  });

  it('never refuses a sign-out for a spent account budget', async () => {
    const h = hostApp({ throttle: { account: 2 } });
    await signUp(h);
    expect([(await h.agent.get('/passwordless-passkeys')).status, (await h.agent.get('/passwordless-passkeys')).status]).toEqual([200, 200]);
    expectProblem(await h.agent.get('/passwordless-passkeys'), 429, 'rate_limited');
    // Before, sign-out shared that budget and was refused with 429 too.
    expect((await h.agent.post('/passwordless-logout').send({})).status).toBe(204);
    expectProblem(await h.agent.get('/me'), 401, 'not_signed_in');
  });

  it('throttles sign-up too, and turns off with throttle: false', async () => {
    const h = hostApp({ throttle: { signUp: 2 } });
    const post = () => h.agent.post('/passwordless-register').send({ email: newEmail(), username: 'x' });
    expect([(await post()).status, (await post()).status, (await post()).status]).toEqual([200, 200, 429]);
    const open = hostApp({ throttle: false });
    for (let i = 0; i < 8; i++) expect((await open.agent.post('/passwordless-register').send({ email: newEmail(), username: 'x' })).status).toBe(200);
  });
});

describe('tokens are bound to the host\'s origins and to the sign-in purpose', () => {
  it('refuses a token made on a sibling origin under the same RP ID, and logs its origin', async () => {
    const h = hostApp();
    const { credential } = await signUp(h);
    const sibling = await signIn(service, app, credential, { origin: 'https://usercontent.app.example.com' });
    expect(sibling.complete.status).toBe(200);
    const login = await supertest(h.host).post('/passwordless-login').send({ token: sibling.complete.body.token });
    expectProblem(login, 401, 'token_not_accepted');
    expect(login.body.detail).toContain('https://usercontent.app.example.com');
    expect(h.logged).toContainEqual(expect.objectContaining({ details: expect.objectContaining({ reason: 'origin', origin: 'https://usercontent.app.example.com', purpose: 'sign-in' }) }));
  });

  it('refuses a step-up token and a token of a weaker custom purpose at login', async () => {
    const h = hostApp();
    const { credential } = await signUp(h);
    const purpose = `weak-${Date.now()}`;
    expect((await service.http.post('/auth-configs/add').set('ApiSecret', app.apiSecret).send({ purpose, userVerificationRequirement: 'discouraged', timeToLive: '00:05:00', performedBy: 'test' })).status).toBe(201);
    for (const p of ['step-up', purpose]) {
      const signin = await signIn(service, app, credential, { purpose: p });
      expect(signin.complete.status).toBe(200);
      const login = await supertest(h.host).post('/passwordless-login').send({ token: signin.complete.body.token });
      expectProblem(login, 401, 'token_not_accepted');
      expect(login.body.detail).toContain(p);
    }
    const ok = await signIn(service, app, credential);
    expect((await supertest(h.host).post('/passwordless-login').send({ token: ok.complete.body.token })).status).toBe(200);
  });
});

describe('UserIdClaimType is honoured both ways', () => {
  interface HandleUser extends LocalUser {
    handle: string;
  }

  /**
   * A store whose ids are its own and whose `handle` holds the service userId; each new user's id
   * is the previous user's handle, so that a lookup by id with a claim value finds the wrong user.
   */
  function handleStore(): UserStore<HandleUser> & { all: HandleUser[] } {
    const all: HandleUser[] = [];
    return {
      all,
      async create(user: NewUser) {
        if (all.some((u) => u.email === user.email)) throw new UserExistsError();
        const created: HandleUser = { id: all.at(-1)?.handle ?? 'first', handle: user.userId, email: user.email, username: user.username, displayName: user.displayName };
        all.push(created);
        return created;
      },
      findById: async (id) => all.find((u) => u.id === id),
      findByUserId: async (userId) => all.find((u) => u.handle === userId),
      remove: async (id) => void all.splice(all.findIndex((u) => u.id === id), 1),
    };
  }

  it('with the claim differing from the store id, each user signs in as themself', async () => {
    const users = handleStore();
    const h = hostApp({ userIdClaimType: 'handle' }, users as unknown as UserStore);
    const a = await signUp(h);
    const b = await signUp(h);
    expect(users.all[1].id).toBe(users.all[0].handle); // B's store id is A's service userId
    for (const [who, email] of [[a, a.email], [b, b.email]] as const) {
      const signin = await signIn(service, app, who.credential);
      const agent = supertest.agent(h.host);
      const login = await agent.post('/passwordless-login').send({ token: signin.complete.body.token });
      expect(login.body.email).toBe(email);
      expect((await agent.get('/me')).body.email).toBe(email);
      const handle = users.all.find((u) => u.email === email)!.handle;
      expect(await h.auth.client.listCredentials(handle)).toEqual([expect.objectContaining({ descriptor: expect.objectContaining({ id: who.credential.idB64 }) })]);
    }
  });

  it('refuses a claim other than id when the store cannot find users by it', () => {
    expect(() => hostApp({ userIdClaimType: 'handle' })).toThrow(/UserIdClaimType.*findByUserId/);
  });
});

describe('same-site requests', () => {
  it('refuses a body-less form post, and a same-site one, but takes the JSON post of the site\'s own page', async () => {
    const h = hostApp();
    await signUp(h);
    expectProblem(await h.agent.post('/passwordless-logout'), 415, 'unsupported_media_type');
    expectProblem(await h.agent.post('/passwordless-logout').type('form'), 415, 'unsupported_media_type');
    expectProblem(await h.agent.post('/passwordless-logout').set('Content-Type', 'application/json').set('Sec-Fetch-Site', 'same-site'), 403, 'cross_site_request');
    expectProblem(await h.agent.post('/passwordless-add-credential').set('Sec-Fetch-Site', 'same-site').send({}), 403, 'cross_site_request');
    expect((await h.agent.get('/me')).status).toBe(200);
    expect((await h.agent.post('/passwordless-logout').set('Content-Type', 'application/json').set('Sec-Fetch-Site', 'same-origin')).status).toBe(204);
    expect((await h.agent.get('/me')).status).toBe(401);
  });

  it('takes same-site posts where the host allows them', async () => {
    const h = hostApp({ allowSameSite: true });
    expect((await h.agent.post('/passwordless-logout').set('Content-Type', 'application/json').set('Sec-Fetch-Site', 'same-site')).status).toBe(204);
  });
});
