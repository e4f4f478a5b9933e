/**
 * Mail that says only what the service wrote, on a service process with a real SMTP server
 * process (and one writing MAIL_FILE): a urlTemplate with control characters, whitespace,
 * credentials or $TOKEN outside the path, query and fragment is refused; the link mailed is the
 * URL as parsed and serialised; a recipient must be one bare address; MAIL_FROM may carry a name.
 */
import { readFileSync } from 'node:fs';
import { expectProblem } from '../support/http';
import { startServiceProcess } from '../support/serviceProcess';
import { startSmtpServer, type TestSmtpServer } from '../support/smtp';
import type { TestApp } from '../support/testService';

const PROCESS_TIMEOUT_MS = 120_000;
const FROM = 'Passkeys <noreply@example.com>';

const INJECTED_TEMPLATES = [
  'https://shop.example.com/?t=$TOKEN\nBcc: victim@example.com',
  'https://shop.example.com/?t=$TOKEN\r\n\r\nYour account is locked: call +1 555 0100',
  'https://shop.example.com/\t?t=$TOKEN',
  'https://shop.example.com/?t=$TOKEN\n---\nDate: 2026-01-01T00:00:00.000Z\nFrom: bank@example.com',
  'https://shop.example.com/ ?t=$TOKEN',
  'https://shop.example.com/\u202e?t=$TOKEN',
  'https://bank.example.com@evil.example.com/?t=$TOKEN',
  'https://$TOKEN.evil.example.com/',
];
const NOT_ONE_ADDRESS = ['"Bank" <admin@example.com>', '"Bank"<admin@example.com>', 'admin@example.com, other@example.com', 'admin@example.com,other', 'admin@example.com\nBcc: x@example.com', 'Bank <admin@example.com>'];

describe('magic-link mail over SMTP, on a service process', () => {
  let smtp: TestSmtpServer;
  let svc: Awaited<ReturnType<typeof startServiceProcess>>;
  let app: TestApp;
  beforeAll(async () => {
    smtp = await startSmtpServer();
    // MAIL_FROM with a display name: before, the service refused to start with it.
    svc = await startServiceProcess({ SMTP_URL: smtp.url, MAIL_FROM: FROM, MAGIC_LINK_NEW_APP_PERIOD: '00:00:00' });
    app = await svc.createApp();
  }, PROCESS_TIMEOUT_MS);
  afterAll(async () => {
    await svc?.stop();
    await smtp?.stop();
  }, PROCESS_TIMEOUT_MS);

  const send = (body: object) => svc.http.post('/magic-links/send').set('ApiSecret', app.apiSecret).send({ emailAddress: 'customer@example.com', urlTemplate: 'https://shop.example.com/login?token=$TOKEN', userId: 'u1', ...body });

  it('refuses injected templates and recipients that are not one bare address with 400, and mails nothing', async () => {
    const before = smtp.received.length;
    for (const urlTemplate of INJECTED_TEMPLATES) {
      const res = await send({ urlTemplate });
      expectProblem(res, 400, 'validation_failed');
      expect({ urlTemplate, fields: Object.keys(res.body.errors) }).toEqual({ urlTemplate, fields: ['urlTemplate'] });
    }
    for (const emailAddress of NOT_ONE_ADDRESS) {
      const res = await send({ emailAddress });
      expectProblem(res, 400, 'validation_failed');
      expect({ emailAddress, fields: Object.keys(res.body.errors) }).toEqual({ emailAddress, fields: ['emailAddress'] });
    }
    // A good one goes through, so nothing was merely slow: only it arrived.
    expect((await send({ emailAddress: 'good@example.com' })).status).toBe(204);
    await smtp.nextMailTo('good@example.com');
    expect(smtp.received.length).toBe(before + 1);
  });

  it("mails the serialised URL to the one recipient, from MAIL_FROM's name and address", async () => {
    expect((await send({ urlTemplate: 'HTTPS://Shop.Example.COM/login?next="home"&token=$TOKEN' })).status).toBe(204);
    const mail = await smtp.nextMailTo('customer@example.com');
    expect(mail.to).toEqual(['customer@example.com']);
    expect(mail.headerTo).toEqual([{ name: '', address: 'customer@example.com' }]);
    expect(mail.from).toBe('noreply@example.com');
    expect(mail.headerFrom).toEqual([{ name: 'Passkeys', address: 'noreply@example.com' }]);
    expect(mail.subject).toBe('Sign in to shop.example.com');
    const link = /https:\/\/\S+/.exec(mail.text)?.[0];
    expect(link).toMatch(/^https:\/\/shop\.example\.com\/login\?next=%22home%22&token=verify_[A-Za-z0-9_.-]+$/);
    expect(new URL(link!).href).toBe(link);
  });
});

describe('magic-link mail to MAIL_FILE, on a service process', () => {
  let svc: Awaited<ReturnType<typeof startServiceProcess>>;
  let app: TestApp;
  beforeAll(async () => {
    svc = await startServiceProcess({ MAIL_FROM: FROM, MAGIC_LINK_NEW_APP_PERIOD: '00:00:00' });
    app = await svc.createApp();
  }, PROCESS_TIMEOUT_MS);
  afterAll(() => svc?.stop(), PROCESS_TIMEOUT_MS);

  it('writes no forged entry: injected templates are refused, a good mail is one entry from MAIL_FROM', async () => {
    for (const urlTemplate of INJECTED_TEMPLATES) {
      expectProblem(await svc.http.post('/magic-links/send').set('ApiSecret', app.apiSecret).send({ emailAddress: 'customer@example.com', urlTemplate, userId: 'u1' }), 400, 'validation_failed');
    }
    // The app's creation mailed nothing; the only entry is this one.
    expect((await svc.http.post('/magic-links/send').set('ApiSecret', app.apiSecret).send({ emailAddress: 'customer@example.com', urlTemplate: 'https://shop.example.com/?t=$TOKEN', userId: 'u1' })).status).toBe(204);
    const file = readFileSync(svc.mailFile, 'utf8');
    expect(file.match(/^---$/gm)).toHaveLength(1);
    expect(file.match(/^From: .*$/gm)).toEqual([`From: ${FROM}`]);
    expect(file.match(/^To: .*$/gm)).toEqual(['To: customer@example.com']);
  });
});
