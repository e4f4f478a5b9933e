/**
 * No link and no origin comes from a request's Host header: the web origins come from
 * configuration (`Origins`, `PublicUrl`) only. Against a real service process that mails through
 * a real SMTP server, the host driven over HTTP with forged Host and X-Forwarded-Host headers.
 */
import supertest from 'supertest';
import { PasswordlessSettingsError, type PasswordlessOptions } from '../../src/express';
import { ORIGIN, signIn } from '../support/ceremonies';
import { expectProblem, hostApp as hostOn, newEmail, signUp as signUpOn, type Host } from '../support/hostApp';
import { startServiceProcess, type ServiceProcess } from '../support/serviceProcess';
import { startSmtpServer, type TestSmtpServer } from '../support/smtp';
import type { TestApp } from '../support/testService';

jest.setTimeout(60_000);

const EVIL = 'accounts-corp.evil.test';
const SIBLING = 'https://usercontent.app.example.com';

let smtp: TestSmtpServer;
let service: ServiceProcess;
let app: TestApp;

beforeAll(async () => {
  smtp = await startSmtpServer();
  service = await startServiceProcess({ MAGIC_LINK_NEW_APP_PERIOD: '00:00:00', SMTP_URL: smtp.url, MAIL_FROM: 'passkeys@example.com' });
  app = await service.createApp();
});
afterAll(async () => {
  await service?.stop();
  await smtp?.stop();
});

/** A host behind one proxy (so X-Forwarded-Host and -Proto are read as Express reads them). */
const hostApp = (options: Partial<PasswordlessOptions> = {}) => hostOn(service, app, options, undefined, { trustProxy: true });

/** The links in the next mail to `email`. */
async function linksMailedTo(email: string): Promise<URL[]> {
  const mail = await smtp.nextMailTo(email);
  return (mail.text.match(/https?:\/\/\S+/g) ?? []).map((link) => new URL(link));
}

/** A request whose every header that could name the host names the attacker's. */
const forged = (h: Host, path: string) => supertest(h.host).post(path).set('Host', EVIL).set('X-Forwarded-Host', EVIL).set('X-Forwarded-Proto', 'https');

describe('the web origins come from configuration, never from the Host header', () => {
  it.each<[string, Partial<PasswordlessOptions>, string]>([
    ['recovery is on', { verifyEmail: false, recovery: true }, 'with recovery'],
    ['verifyEmail is on (the default)', { verifyEmail: undefined }, 'with verifyEmail'],
    ['it runs in production', { verifyEmail: false, env: { NODE_ENV: 'production' } }, 'in production'],
  ])('a host without Origins refuses to start when %s, naming the setting', (_label, options, because) => {
    // Before, such a host started and built its links and origins from each request's Host header.
    let thrown: unknown;
    try {
      hostApp({ origins: undefined, ...options });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(PasswordlessSettingsError);
    expect((thrown as PasswordlessSettingsError).key).toBe('Passwordless__Origins');
    expect((thrown as Error).message).toContain(because);
  });

  it('a recovery asked for under a forged Host mails the victim a link to the configured origin', async () => {
    const h = hostApp({ recovery: true });
    const { email } = await signUpOn(service, app, h);
    expect((await forged(h, '/passwordless-recover').send({ email })).status).toBe(202);
    const links = await linksMailedTo(email);
    expect(links.map((l) => `${l.origin}${l.pathname}`)).toEqual([`${ORIGIN}/passwordless-recover`]);
  });

  it('a sign-up asked for under a forged Host mails a verification link to the configured origin', async () => {
    const h = hostApp({ verifyEmail: true });
    const email = newEmail();
    expect((await forged(h, '/passwordless-register').send({ email, username: 'someone' })).status).toBe(202);
    const links = await linksMailedTo(email);
    expect(links.map((l) => `${l.origin}${l.pathname}`)).toEqual([`${ORIGIN}/passwordless-verify-email`]);
  });

  it('links start with PublicUrl, path prefix included, and the sign-ins must come from its origin', async () => {
    const h = hostApp({ origins: undefined, publicUrl: `${ORIGIN}/accounts/`, recovery: true });
    expect(h.auth.settings.origins).toEqual([ORIGIN]);
    const { email } = await signUpOn(service, app, h);
    expect((await forged(h, '/passwordless-recover').send({ email })).status).toBe(202);
    expect((await linksMailedTo(email)).map((l) => `${l.origin}${l.pathname}`)).toEqual([`${ORIGIN}/accounts/passwordless-recover`]);
    expect(() => hostApp({ origins: 'https://other.example.com', publicUrl: ORIGIN })).toThrow(/publicUrl is on https:\/\/app.example.com, which is not one of the Origins/);
  });

  it('serves /.well-known/passkey-endpoints on the configured origin, whatever Host is asked for', async () => {
    const h = hostApp({ passkeyEndpoints: { enroll: '/passkeys/new', manage: '/passkeys' } });
    const res = await supertest(h.host).get('/.well-known/passkey-endpoints').set('Host', EVIL).set('X-Forwarded-Host', EVIL);
    expect(res.body).toEqual({ enroll: `${ORIGIN}/passkeys/new`, manage: `${ORIGIN}/passkeys` });
  });
});

describe('a development host without Origins', () => {
  it("fixes its origin at the first request, warns, and never reads it again: a sibling's token posted under the sibling's Host is refused", async () => {
    const h = hostApp({ origins: undefined, verifyEmail: false });
    // The first request, as the developer's browser makes it, fixes the origin.
    await supertest(h.host).get('/me').set('Host', 'app.example.com').set('X-Forwarded-Proto', 'https');
    expect(h.logged).toContainEqual(expect.objectContaining({ message: expect.stringContaining(`fixed at ${ORIGIN}`), details: { origin: ORIGIN } }));
    const { credential, user } = await signUpOn(service, app, h);

    // Before, a token made by script on a sibling origin signed in when posted with the sibling's Host.
    const sibling = (await signIn(service, app, credential, { origin: SIBLING })).complete.body.token as string;
    const login = await supertest(h.host).post('/passwordless-login').set('Host', 'usercontent.app.example.com').set('X-Forwarded-Proto', 'https').send({ token: sibling });
    expectProblem(login, 401, 'token_not_accepted');
    expect(login.body.detail).toContain(SIBLING);

    const own = (await signIn(service, app, credential)).complete.body.token as string;
    const ok = await supertest(h.host).post('/passwordless-login').set('Host', EVIL).send({ token: own });
    expect({ status: ok.status, id: ok.body.id }).toEqual({ status: 200, id: user.id });
    expect(h.logged.filter((l) => l.message.includes('is fixed at'))).toHaveLength(1);
  });
});
