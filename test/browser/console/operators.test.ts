/**
 * The operator console's operators (issue 36), in Debian's Chromium with virtual authenticators,
 * against a real service process: bootstrap from the CLI's invite link, the link's second use
 * refused, sign-in by autofill, sign-out, and a signed-out visitor sent to sign in.
 */
import { browserSuite } from '../support/chromium';
import { startConsoleHarness, type ConsoleHarness } from '../support/consoleHarness';

jest.setTimeout(90_000);

browserSuite('console operators')('the console: operators bootstrap and sign in with passkeys', () => {
  let h: ConsoleHarness;

  beforeAll(async () => {
    h = await startConsoleHarness();
  });

  afterAll(async () => {
    await h?.close();
  });

  it('bootstraps the first operator from the CLI link, refuses the link a second time, and signs in again by autofill', async () => {
    const link = await h.invite('first@example.com');
    const device = await h.device();
    await device.page.goto(link);
    await h.screenshot(device.page, 'invite');
    await device.page.click('[data-accept-invite]');
    await device.page.waitForURL(`${h.origin}/console/apps`);
    expect(await device.page.textContent('header .who')).toBe('first@example.com');

    // The same link on another device: refused, and no second operator appears.
    const other = await h.device();
    await other.page.goto(link);
    await other.page.click('[data-accept-invite]');
    await other.page.waitForSelector('[data-error]:not([hidden])');
    expect(await other.page.textContent('[data-error]')).toContain('already used');

    // Sign out, then back in through the address field's passkey suggestion (a conditional request, resolved by the virtual authenticator).
    await device.page.click('header .signout button');
    await device.page.waitForURL(`${h.origin}/console/sign-in`);
    await h.screenshot(device.page, 'sign-in');
    await device.page.goto(`${h.origin}/console/operators`);
    await device.page.waitForURL(/\/console\/sign-in\?next=%2Fconsole%2Foperators$/);
    await device.page.waitForURL(`${h.origin}/console/operators`);
    expect(await device.page.textContent('main')).toContain('first@example.com');
    await h.screenshot(device.page, 'operators');
  });
});
