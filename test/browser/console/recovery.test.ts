/**
 * Operators recover by email when mail is configured (issue 36), with a real SMTP server process,
 * Chromium and a real service process: a device without the passkey asks for a link, the mail
 * arrives, its link signs in once; and an invite made on the Operators page is mailed.
 */
import { startSmtpServer, type TestSmtpServer } from '../../support/smtp';
import { browserSuite } from '../support/chromium';
import { startConsoleHarness, type ConsoleHarness } from '../support/consoleHarness';

jest.setTimeout(90_000);

browserSuite('console recovery')('the console: recovery by email and mailed invites', () => {
  let smtp: TestSmtpServer;
  let h: ConsoleHarness;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    h = await startConsoleHarness({ SMTP_URL: smtp.url, MAIL_FROM: 'console@example.com' });
  });

  afterAll(async () => {
    await h?.close();
    await smtp?.stop();
  });

  it('mails an operator who lost their passkey a link that signs them in once', async () => {
    // The first operator is the console app's admin address, which a new app may mail during its first day.
    await h.operator('lost@example.com');
    const newDevice = await h.device();
    await newDevice.page.goto(`${h.origin}/console/recover`);
    await newDevice.page.fill('[data-recover-form] input[name=email]', 'lost@example.com');
    await newDevice.page.click('[data-recover-form] button');
    await newDevice.page.waitForSelector('[data-status]:not([hidden])');
    expect(await newDevice.page.textContent('[data-status]')).toContain('a link is on its way');
    const mail = await smtp.nextMailTo('lost@example.com');
    const link = /(http:\/\/localhost:\d+\/console\/\S+)/.exec(mail.text)?.[1];
    expect(link).toBeDefined();
    await newDevice.page.goto(link!);
    await newDevice.page.waitForSelector('[data-recover-confirm]:not([hidden])');
    await newDevice.page.click('[data-recover-confirm]');
    await newDevice.page.waitForURL(`${h.origin}/console/account`);
    expect(await newDevice.page.textContent('header .who')).toBe('lost@example.com');

    // Once: the same link on a third device does not sign in.
    const third = await h.device();
    await third.page.goto(link!);
    await third.page.waitForSelector('[data-recover-confirm]:not([hidden])');
    await third.page.click('[data-recover-confirm]');
    await third.page.waitForSelector('[data-status]:not([hidden])');
    expect(third.page.url()).not.toContain('/console/account');
  });

  it('mails the invite an operator makes on the Operators page', async () => {
    const device = await h.operator('inviter@example.com');
    await device.page.goto(`${h.origin}/console/operators`);
    await device.page.fill('input[name=email]', 'Newcomer@Example.com');
    await device.page.click('form[action="/console/operators/invite"] button');
    await device.page.waitForSelector('[data-secret]');
    const shown = (await device.page.textContent('[data-secret]'))!.trim();
    const mail = await smtp.nextMailTo('newcomer@example.com');
    expect(mail.text).toContain(shown);
    const newcomer = await h.device();
    await h.acceptInvite(newcomer, shown);
    expect(await newcomer.page.textContent('header .who')).toBe('newcomer@example.com');
  });
});
