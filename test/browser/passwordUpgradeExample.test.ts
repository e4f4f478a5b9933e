/**
 * The password-upgrade example as a user runs it: `npm run example:password-upgrade` on a fresh
 * EXAMPLE_DATA_DIR (it starts the service itself and seeds its password users), driven by Chromium
 * with a virtual platform authenticator through the page's own controls: a password sign-in, the
 * passkey it leads to, sign-out, the autofill sign-in with that passkey, and the password still
 * working. The screenshots of the README's "Migrating from passwords" are taken here.
 *
 * This Chromium (156) reports `conditionalCreate: true`, but its conditional create never makes a
 * passkey from a virtual authenticator (no password manager vouches for the sign-in in headless
 * Chromium): the request waits out the ceremony's timeout and ends in NotAllowedError, so the
 * browser module's `upgrade()` answers `declined` (see test/browser/passwordUpgrade.test.ts and
 * docs/api.md). So the page's one-click offer is what a user sees here, tested end to end; the
 * silent path is tested in a second browser whose `navigator.credentials.create` passes the
 * page's conditional request on without its mediation, as a browser that makes it would.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, CDPSession, Page } from 'playwright-core';
import { freeLoopbackPort } from '../support/net';
import { childEnv } from '../support/serviceProcess';
import { addVirtualAuthenticator, browserSuite, launchChromium, requireChromium } from './support/chromium';

const ROOT = join(__dirname, '..', '..');
const SCREENSHOTS = join(ROOT, 'docs', 'images');
const STEP_TIMEOUT_MS = 30_000;
/** The service's ceremonies are short here, so that Chromium's refused conditional create (it waits out the timeout) ends in seconds. */
const CEREMONY_TIMEOUT_SECONDS = 5;
/** The page restarts its autofill request this often, before its challenge expires. */
const AUTOFILL_RESTART_SECONDS = 2;
/** Chromium's virtual authenticators report this AAGUID; the example's service names it through AAGUID_NAMES_FILE. */
const VIRTUAL_AAGUID = '01020304-0506-0708-0102-030405060708';
const ADA = { email: 'ada@example.com', password: 'analytical-engine-1843', displayName: 'Ada Lovelace' };
const GRACE = { email: 'grace@example.com', password: 'compiler-a0-1952', displayName: 'Grace Hopper' };
type Seeded = typeof ADA;

jest.setTimeout(180_000);

interface VirtualCredential {
  credentialId: string;
  isResidentCredential: boolean;
  rpId: string;
  userHandle: string;
}

/** Whether any process of the group `pid` leads is still running. */
function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

const base64url = (standardBase64: string) => Buffer.from(standardBase64, 'base64').toString('base64url');

browserSuite('password-upgrade example')('the password-upgrade example (npm run example:password-upgrade) in Chromium', () => {
  let dataDir: string;
  let example: ChildProcessWithoutNullStreams | undefined;
  let output = '';
  let hostUrl: string;
  let serviceUrl: string;
  let browser: Browser | undefined;
  let page: Page;
  let cdp: CDPSession;
  let authenticatorId: string;
  /** Ada's id in the host, also her userId at the service. */
  let adaId: string;

  const byTest = (name: string, on: Page = page) => on.locator(`[data-test="${name}"]`);
  const api = (path: string, on: Page = page) =>
    on.evaluate(async (p) => {
      const res = await fetch(p);
      return { status: res.status, body: await res.json() };
    }, path);
  const waitForStatus = (pattern: RegExp, on: Page = page) =>
    on.waitForFunction((source) => new RegExp(source).test(document.querySelector('[data-test="status"]')?.textContent ?? ''), pattern.source, { timeout: STEP_TIMEOUT_MS });
  const credentialsInAuthenticator = async () => (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials as VirtualCredential[];
  const passkeysListed = (n: number) => page.waitForFunction((count) => document.querySelectorAll('[data-test="passkey"]').length === count, n, { timeout: STEP_TIMEOUT_MS });
  const shot = (name: string, on: Page = page) => on.screenshot({ path: join(SCREENSHOTS, `${name}.png`) });
  /** Resolves once the page's next passkey sign-in (POST /passwordless-login) succeeded: start it before the action that signs in. */
  const passkeyLogin = (on: Page = page) => on.waitForResponse((r) => new URL(r.url()).pathname === '/passwordless-login' && r.status() === 200, { timeout: STEP_TIMEOUT_MS });
  /** What the page did about a passkey after the password sign-in: `created`, `offered`, `not-offered` (or `failed`, its error in the status). */
  const upgradeOutcome = async (on: Page = page) => {
    await on.waitForFunction(() => document.body.dataset.upgrade !== undefined, undefined, { timeout: STEP_TIMEOUT_MS });
    return on.evaluate(() => document.body.dataset.upgrade);
  };

  async function expectSignedIn(on: Page = page, user: Seeded = ADA): Promise<void> {
    await on.waitForFunction((e) => document.querySelector('[data-test="me"]')?.textContent?.includes(e), user.email, { timeout: STEP_TIMEOUT_MS });
    expect(await api('/api/me', on)).toMatchObject({ status: 200, body: { id: (user === ADA && adaId) || expect.any(String), email: user.email, displayName: user.displayName } });
  }

  async function expectSignedOut(on: Page = page): Promise<void> {
    await on.waitForFunction(() => document.querySelector('[data-test="me"]')?.textContent === 'Signed out', undefined, { timeout: STEP_TIMEOUT_MS });
    expect(await api('/api/me', on)).toMatchObject({ status: 401, body: { errorCode: 'not_signed_in' } });
  }

  async function signInWithPassword(on: Page = page, user: Seeded = ADA): Promise<void> {
    await byTest('email', on).fill(user.email);
    await byTest('password', on).fill(user.password);
    await byTest('password-signin', on).click();
    await expectSignedIn(on, user);
  }

  /** Resolves with the body of the page's next `/register/begin` at the service. */
  const registrationBegun = (on: Page = page) =>
    on.waitForRequest((r) => r.url() === `${serviceUrl}/register/begin` && r.method() === 'POST', { timeout: STEP_TIMEOUT_MS }).then((r) => r.postDataJSON() as { mediation?: string });

  /** The user's passkeys at the service, through its private API with the example's secret. */
  async function credentialsAtService(userId: string): Promise<Array<{ descriptor: { id: string }; upgrade?: boolean }>> {
    const { apiSecret } = JSON.parse(readFileSync(join(dataDir, 'keys.json'), 'utf8')) as { apiSecret: string };
    const res = await fetch(`${serviceUrl}/credentials/list?userId=${encodeURIComponent(userId)}`, { headers: { ApiSecret: apiSecret } });
    expect(res.status).toBe(200);
    return (await res.json()) as Array<{ descriptor: { id: string }; upgrade?: boolean }>;
  }

  beforeAll(async () => {
    const executablePath = requireChromium();
    dataDir = mkdtempSync(join(tmpdir(), 'pwl-password-upgrade-'));
    mkdirSync(SCREENSHOTS, { recursive: true });
    writeFileSync(join(dataDir, 'aaguids.json'), JSON.stringify({ [VIRTUAL_AAGUID]: { name: 'Chromium virtual authenticator' } }));
    const [port, servicePort] = [await freeLoopbackPort(), await freeLoopbackPort()];
    hostUrl = `http://localhost:${port}`;
    serviceUrl = `http://127.0.0.1:${servicePort}`;
    example = spawn('npm', ['run', 'example:password-upgrade'], {
      cwd: ROOT,
      detached: true,
      env: childEnv({
        PORT: String(port),
        SERVICE_PORT: String(servicePort),
        EXAMPLE_DATA_DIR: dataDir,
        AAGUID_NAMES_FILE: join(dataDir, 'aaguids.json'),
        CEREMONY_TIMEOUT_SECONDS: String(CEREMONY_TIMEOUT_SECONDS),
        AUTOFILL_RESTART_SECONDS: String(AUTOFILL_RESTART_SECONDS),
        // The step-up below is made with a passkey minutes old (an hour is the default).
        NEW_PASSKEY_STEP_UP_DELAY_SECONDS: '0',
        // The suite signs in, lists and ends sessions faster than a person: more than a client address's default budget a minute.
        EXAMPLE_REQUESTS_PER_MINUTE: '1000',
      }),
    });
    example.stdout.on('data', (chunk) => (output += chunk));
    example.stderr.on('data', (chunk) => (output += chunk));
    await new Promise<void>((resolve, reject) => {
      const check = () => {
        if (output.includes(`Password-upgrade example: ${hostUrl}`)) resolve();
        else if (example!.exitCode !== null) reject(new Error(`npm run example:password-upgrade exited:\n${output}`));
      };
      example!.stdout.on('data', check);
      example!.once('exit', check);
    });
    browser = await launchChromium(executablePath);
    const context = await browser.newContext({ viewport: { width: 900, height: 1000 } });
    page = await context.newPage();
    cdp = await context.newCDPSession(page);
    authenticatorId = await addVirtualAuthenticator(cdp);
    await page.goto(hostUrl);
    await expectSignedOut();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    if (example && groupAlive(example.pid!)) process.kill(-example.pid!, 'SIGKILL');
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('started the service with its app, and seeded the password users on the first run', () => {
    expect(output).toContain("Created the app 'passwordupgrade'");
    expect(output).toContain(`Passwordless service: ${serviceUrl}`);
    expect(output).toContain(`Seeded 2 password users:\n  ${ADA.email}  password: ${ADA.password}\n`);
  });

  it("signs in with a password; this Chromium declines the silent passkey, so the page offers one, and one click makes it, on the authenticator and at the service", async () => {
    expect(await byTest('email').getAttribute('autocomplete')).toBe('username webauthn');
    expect(await page.evaluate(async () => (await PublicKeyCredential.getClientCapabilities()).conditionalCreate)).toBe(true);
    await byTest('email').fill(ADA.email);
    await byTest('password').fill(ADA.password);
    await shot('password-sign-in');
    // The page asks for the silent upgrade at once: the host grants it (notePasswordSignIn), the
    // module begins a conditional create at the service, and Chromium makes nothing.
    const granted = page.waitForResponse((r) => new URL(r.url()).pathname === '/passwordless-upgrade', { timeout: STEP_TIMEOUT_MS });
    const begun = registrationBegun();
    await byTest('password-signin').click();
    await expectSignedIn();
    adaId = (await api('/api/me')).body.id;
    expect((await granted).status()).toBe(200);
    expect((await begun).mediation).toBe('conditional');

    expect(await upgradeOutcome()).toBe('offered');
    expect(await credentialsInAuthenticator()).toEqual([]);
    expect(await credentialsAtService(adaId)).toEqual([]);
    await byTest('upgrade-offer').waitFor({ state: 'visible', timeout: STEP_TIMEOUT_MS });
    await shot('upgrade-prompt');
    const reported = page.waitForResponse((r) => new URL(r.url()).pathname === '/passwordless-add-credential/complete' && r.status() === 200, { timeout: STEP_TIMEOUT_MS });
    // The click makes the passkey with the declined upgrade's token: the password proof it spent asks for no second one.
    const askedForToken: string[] = [];
    const countTokenRequests = (r: { url(): string }) => void (new URL(r.url()).pathname === '/passwordless-add-credential' && askedForToken.push(r.url()));
    page.on('request', countTokenRequests);
    await byTest('use-passkey').click();
    await reported;
    page.off('request', countTokenRequests);
    expect(askedForToken).toEqual([]);
    await waitForStatus(/^Passkey saved/);
    await passkeysListed(1);
    expect(await byTest('upgrade-offer').isHidden()).toBe(true);

    const [onDevice, ...more] = await credentialsInAuthenticator();
    expect(more).toEqual([]);
    expect(onDevice).toMatchObject({ isResidentCredential: true, rpId: 'localhost', userHandle: Buffer.from(adaId).toString('base64') });
    // One click is a modal create with the user present: not marked as made by the upgrade.
    expect((await credentialsAtService(adaId)).map((c) => [c.descriptor.id, c.upgrade])).toEqual([[base64url(onDevice.credentialId), false]]);
  });

  it('signed out, signs in through the email field\'s autofill with that passkey, with no password', async () => {
    // The virtual authenticator answers the page's autofill request at once, as a user picking the passkey would.
    const autofilled = passkeyLogin();
    await byTest('logout').click();
    await autofilled;
    await expectSignedIn();
    await waitForStatus(/with a passkey\.$/);
    await passkeysListed(1);
    await shot('passkey-sign-in');
  });

  it('the password still works, and a user who has a passkey is not offered another', async () => {
    // The user does not pick the passkey this time: the autofill request stays open while they type the password.
    await cdp.send('WebAuthn.setAutomaticPresenceSimulation', { authenticatorId, enabled: false });
    try {
      await byTest('logout').click();
      await expectSignedOut();
      await signInWithPassword();
      await waitForStatus(/with your password\.$/);
      expect(await upgradeOutcome()).toBe('not-offered');
      expect(await byTest('upgrade-offer').isHidden()).toBe(true);
      expect(await credentialsInAuthenticator()).toHaveLength(1);
      expect(await credentialsAtService(adaId)).toHaveLength(1);
    } finally {
      await cdp.send('WebAuthn.setAutomaticPresenceSimulation', { authenticatorId, enabled: true });
    }
  });

  it('lists where the user is signed in (two browsers), and "Sign out there" signs the other browser out at its next request', async () => {
    // This browser signs in with the passkey (autofill), the other with the password.
    const autofilled = passkeyLogin();
    await byTest('logout').click();
    await autofilled;
    await expectSignedIn();
    const elsewhere = await browser!.newContext({ viewport: { width: 900, height: 1000 } });
    try {
      const other = await elsewhere.newPage();
      await other.goto(hostUrl);
      await expectSignedOut(other);
      await signInWithPassword(other);
      expect(await upgradeOutcome(other)).toBe('not-offered');

      await page.reload();
      await expectSignedIn();
      const sessions = page.locator('[data-test="session"]');
      await page.waitForFunction(() => document.querySelectorAll('[data-test="session"]').length === 2, undefined, { timeout: STEP_TIMEOUT_MS });
      const [here, there] = [sessions.and(page.locator('[data-current="true"]')), sessions.and(page.locator(':not([data-current])'))];
      expect(await here.textContent()).toMatch(/Chrome on Linux.*signed in with passkey “Passkey \S+”/);
      expect(await there.textContent()).toMatch(/Chrome on Linux.*signed in with password/);
      expect(await here.locator('[data-test="end-session"]').count()).toBe(0);
      await shot('upgrade-sessions');

      // Ending another session asks for a step-up, which the page runs with this device's passkey.
      const steppedUp = page.waitForResponse((r) => new URL(r.url()).pathname === '/passwordless-step-up' && r.status() === 204, { timeout: STEP_TIMEOUT_MS });
      await there.locator('[data-test="end-session"]').click();
      await steppedUp;
      await waitForStatus(/^Signed out there\.$/);
      await page.waitForFunction(() => document.querySelectorAll('[data-test="session"]').length === 1, undefined, { timeout: STEP_TIMEOUT_MS });
      expect(await api('/api/me', other)).toMatchObject({ status: 401, body: { errorCode: 'not_signed_in' } });
      await other.reload();
      await expectSignedOut(other);
      await expectSignedIn();
    } finally {
      await elsewhere.close();
    }
  });

  it('where the browser makes conditional creates, the passkey is made silently right after the password sign-in, and signs in next time', async () => {
    const context = await browser!.newContext({ viewport: { width: 900, height: 1000 } });
    try {
      const other = await context.newPage();
      // A browser whose password manager vouches for the sign-in: the page's conditional create is
      // passed on to the authenticator (without its mediation, which the virtual one does not
      // honour), and recorded.
      await other.addInitScript(() => {
        const create = navigator.credentials.create.bind(navigator.credentials);
        (window as unknown as { createdWith: unknown[] }).createdWith = [];
        navigator.credentials.create = (options?: CredentialCreationOptions & { mediation?: string }) => {
          const { mediation, ...rest } = options ?? {};
          (window as unknown as { createdWith: unknown[] }).createdWith.push(mediation);
          return create(rest);
        };
      });
      const otherCdp = await context.newCDPSession(other);
      const otherAuthenticator = await addVirtualAuthenticator(otherCdp);
      await other.goto(hostUrl);
      await expectSignedOut(other);
      await signInWithPassword(other, GRACE);
      expect(await upgradeOutcome(other)).toBe('created');
      await waitForStatus(/Your browser saved a passkey/, other);
      await other.waitForFunction(() => document.querySelectorAll('[data-test="passkey"]').length === 1, undefined, { timeout: STEP_TIMEOUT_MS });
      expect(await byTest('upgrade-offer', other).isHidden()).toBe(true);
      expect(await other.evaluate(() => (window as unknown as { createdWith: unknown[] }).createdWith)).toEqual(['conditional']);
      await shot('upgrade-created', other);

      const graceId = (await api('/api/me', other)).body.id as string;
      const held = (await otherCdp.send('WebAuthn.getCredentials', { authenticatorId: otherAuthenticator })).credentials as VirtualCredential[];
      expect(held).toHaveLength(1);
      expect((await credentialsAtService(graceId)).map((c) => [c.descriptor.id, c.upgrade])).toEqual([[base64url(held[0].credentialId), true]]);

      const autofilled = passkeyLogin(other);
      await byTest('logout', other).click();
      await autofilled;
      await expectSignedIn(other, GRACE);
    } finally {
      await context.close();
    }
  });
});
