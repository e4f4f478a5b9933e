/**
 * Anonymous visitors cannot spend the app's magic-link quota: the host caps its sign-up and
 * recovery mails per hour and day below the service's quota, keeps a share for recovery that
 * sign-ups cannot touch, shows the counts, and can ask for a challenge before a sign-up mail.
 * Against a real service process that mails through a real SMTP server.
 */
import supertest from 'supertest';
import { InMemoryUserStore, type MailUsage, type PasswordlessOptions } from '../../src/express';
import { eventually } from '../support/eventually';
import { expectProblem, hostApp as hostOn, newEmail, signUp as signUpOn } from '../support/hostApp';
import { startServiceProcess, type ServiceProcess } from '../support/serviceProcess';
import { startSmtpServer, type TestSmtpServer } from '../support/smtp';
import { MANAGEMENT_KEY, uniqueAppId, type TestApp } from '../support/testService';

jest.setTimeout(60_000);

let smtp: TestSmtpServer;
let service: ServiceProcess;

beforeAll(async () => {
  smtp = await startSmtpServer();
  service = await startServiceProcess({ MAGIC_LINK_NEW_APP_PERIOD: '00:00:00', SMTP_URL: smtp.url, MAIL_FROM: 'passkeys@example.com' });
});
afterAll(async () => {
  await service?.stop();
  await smtp?.stop();
});

/** An app whose magic-link quota at the service is `quota` mails in 30 days. */
async function appWithQuota(quota: number): Promise<TestApp> {
  const appId = uniqueAppId();
  const res = await service.http.post(`/admin/apps/${appId}/create`).set('ManagementKey', MANAGEMENT_KEY).send({ adminEmail: 'admin@example.com', magicLinkEmailMonthlyQuota: quota });
  expect(res.status).toBe(200);
  return { appId, apiKey: res.body.apiKey1, apiKey2: res.body.apiKey2, apiSecret: res.body.apiSecret1, apiSecret2: res.body.apiSecret2 };
}

const mailsTo = (email: string) => smtp.received.filter((m) => m.to.includes(email));

describe("the host's mail budget", () => {
  it('stops sign-up mails at its cap, below the service quota, and still delivers recovery from the share kept for it', async () => {
    // The service would send this app six mails in 30 days; the host allows five a day, three of them for sign-ups.
    const app = await appWithQuota(6);
    const users = new InMemoryUserStore();
    const usage: MailUsage[] = [];
    const options: Partial<PasswordlessOptions> = { verifyEmail: true, recovery: true, mailBudget: { perHour: 5, perDay: 5, recoveryShare: 0.4, onUsage: (u) => void usage.push(u) } };
    const h = hostOn(service, app, options, users, { trustProxy: true });
    const owner = await signUpOn(service, app, hostOn(service, app, { verifyEmail: false }, users));

    // Strangers sign up from six client addresses (before, all six went out and spent the whole quota).
    const statuses: number[] = [];
    let refused: supertest.Response | undefined;
    for (let i = 0; i < 6; i++) {
      const res = await supertest(h.host).post('/passwordless-register').set('X-Forwarded-For', `198.51.100.${i}`).send({ email: newEmail(), username: 'x' });
      statuses.push(res.status);
      if (res.status === 429) refused = res;
    }
    expect(statuses).toEqual([202, 202, 202, 429, 429, 429]);
    expectProblem(refused!, 429, 'mail_quota_reached');
    expect(Number(refused!.headers['retry-after'])).toBeGreaterThan(0);

    // The owner's recovery is still delivered (before: the service's quota was spent, and nothing came).
    expect((await supertest(h.host).post('/passwordless-recover').send({ email: owner.email })).status).toBe(202);
    const mail = await smtp.nextMailTo(owner.email);
    expect(mail.text).toMatch(/passwordless-recover\?recovery=/);

    // The counts: what an operator alerts on before users notice.
    expect(await h.auth.mailUsage()).toEqual({ hour: { sent: 4, limit: 5, signUps: 3, signUpLimit: 3 }, day: { sent: 4, limit: 5, signUps: 3, signUpLimit: 3 } });
    expect(usage.map((u) => [u.kind, u.allowed])).toEqual([
      ...Array(3).fill(['verification', true]),
      ...Array(3).fill(['verification', false]),
      ['recovery', true],
    ]);
  });

  it('gives back a mail the service refused, and counts no recovery for an unknown address', async () => {
    const app = await appWithQuota(0); // the service sends this app nothing
    const h = hostOn(service, app, { verifyEmail: true, recovery: true });
    expect((await supertest(h.host).post('/passwordless-register').send({ email: newEmail(), username: 'x' })).status).toBe(202);
    expect((await supertest(h.host).post('/passwordless-recover').send({ email: newEmail() })).status).toBe(202);
    // The sign-up's mail was counted before the answer, and given back once the service refused it.
    await eventually('the refused mail logged', () => h.logged.find((l) => l.message === 'passwordless: a sign-up mail could not be sent'));
    expect(await h.auth.mailUsage()).toMatchObject({ day: { sent: 0, signUps: 0 } });
  });
});

describe('a challenge before a sign-up mail', () => {
  it('refuses the sign-up with 403 challenge_failed when the host says so (or its check fails), and sends nothing', async () => {
    const app = await appWithQuota(100);
    const seen: string[] = [];
    const h = hostOn(service, app, {
      verifyEmail: true,
      signUpChallenge: (req) => {
        const answer = String(req.get('x-captcha') ?? '');
        seen.push(answer);
        if (answer === 'broken') throw new Error('captcha service down');
        return answer === 'solved';
      },
    });
    const [wrong, broken] = [newEmail(), newEmail()];
    expectProblem(await supertest(h.host).post('/passwordless-register').set('X-Captcha', 'guessed').send({ email: wrong, username: 'x' }), 403, 'challenge_failed');
    expectProblem(await supertest(h.host).post('/passwordless-register').set('X-Captcha', 'broken').send({ email: broken, username: 'x' }), 403, 'challenge_failed');
    const email = newEmail();
    expect((await supertest(h.host).post('/passwordless-register').set('X-Captcha', 'solved').send({ email, username: 'x' })).status).toBe(202);
    await smtp.nextMailTo(email);
    expect([mailsTo(wrong), mailsTo(broken)]).toEqual([[], []]);
    expect(seen).toEqual(['guessed', 'broken', 'solved']);
    expect((await h.auth.mailUsage()).day.sent).toBe(1);
  });
});
