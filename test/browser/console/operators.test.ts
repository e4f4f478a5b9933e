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

    await other.page.goto(`${h.origin}/console/sign-in`);
    await h.screenshot(other.page, 'sign-in'); // a device without a passkey: nothing to offer, the page stays

    // Sign out: the answer sends the browser to sign-in, and the old session cookie opens nothing any
    // more. (That sign-in page is not loaded here: its address field would sign in again at once.)
    const cookie = (await device.context.cookies()).find((c) => c.name === 'console')!;
    await device.page.route(`${h.origin}/console/sign-in`, (route) => route.abort());
    const [signedOut] = await Promise.all([
      device.page.waitForResponse((res) => res.url() === `${h.origin}/console/sign-out`),
      device.page.click('header .signout button'),
    ]);
    expect({ status: signedOut.status(), location: signedOut.headers().location }).toEqual({ status: 303, location: '/console/sign-in' });
    const stale = await h.service.http.get('/console/operators').set('Cookie', `console=${cookie.value}`);
    expect(stale.headers.location).toBe('/console/sign-in?next=%2Fconsole%2Foperators');
    await device.page.unroute(`${h.origin}/console/sign-in`);

    // Signed out, a console URL leads to sign-in; the passkey the address field offers (a
    // conditional request, which Chromium resolves from the virtual authenticator) leads back to it.
    const landed = await device.page.goto(`${h.origin}/console/operators`, { waitUntil: 'commit' });
    expect(landed!.url()).toBe(`${h.origin}/console/sign-in?next=%2Fconsole%2Foperators`);
    await device.page.waitForURL(`${h.origin}/console/operators`);
    expect(await device.page.textContent('main')).toContain('first@example.com');
    await h.screenshot(device.page, 'operators');
  });
});
