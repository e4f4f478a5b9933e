/**
 * The password-upgrade example as a user runs it: `npm run example:password-upgrade` on a fresh
 * EXAMPLE_DATA_DIR (it starts the service itself and seeds its password users), driven by Chromium
 * with a virtual platform authenticator through the page's own controls: a password sign-in, the
 * passkey it leads to, sign-out, the autofill sign-in with that passkey, and the password still
 * working. The screenshots of the README's "Migrating from passwords" are taken here.
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
/** Chromium's virtual authenticators report this AAGUID; the example's service names it through AAGUID_NAMES_FILE. */
const VIRTUAL_AAGUID = '01020304-0506-0708-0102-030405060708';
const ADA = { email: 'ada@example.com', password: 'analytical-engine-1843', displayName: 'Ada Lovelace' };

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
  /** What the page did about a passkey after the password sign-in: `created`, `offered` or `not-offered`. */
  const upgradeOutcome = async (on: Page = page) => {
    await on.waitForFunction(() => document.body.dataset.upgrade !== undefined, undefined, { timeout: STEP_TIMEOUT_MS });
    return on.evaluate(() => document.body.dataset.upgrade);
  };

  async function expectSignedIn(on: Page = page): Promise<void> {
    await on.waitForFunction((e) => document.querySelector('[data-test="me"]')?.textContent?.includes(e), ADA.email, { timeout: STEP_TIMEOUT_MS });
    expect(await api('/api/me', on)).toMatchObject({ status: 200, body: { id: adaId ?? expect.any(String), email: ADA.email, displayName: ADA.displayName } });
  }

  async function expectSignedOut(on: Page = page): Promise<void> {
    await on.waitForFunction(() => document.querySelector('[data-test="me"]')?.textContent === 'Signed out', undefined, { timeout: STEP_TIMEOUT_MS });
    expect(await api('/api/me', on)).toMatchObject({ status: 401, body: { errorCode: 'not_signed_in' } });
  }

  async function signInWithPassword(on: Page = page): Promise<void> {
    await byTest('email', on).fill(ADA.email);
    await byTest('password', on).fill(ADA.password);
    await byTest('password-signin', on).click();
    await expectSignedIn(on);
  }

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
      env: childEnv({ PORT: String(port), SERVICE_PORT: String(servicePort), EXAMPLE_DATA_DIR: dataDir, AAGUID_NAMES_FILE: join(dataDir, 'aaguids.json') }),
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

  it('signs in with a password; the page then offers a passkey, and one click makes it, on the authenticator and at the service', async () => {
    expect(await byTest('email').getAttribute('autocomplete')).toBe('username webauthn');
    await byTest('email').fill(ADA.email);
    await byTest('password').fill(ADA.password);
    await shot('password-sign-in');
    await byTest('password-signin').click();
    await expectSignedIn();
    adaId = (await api('/api/me')).body.id;
    expect(await credentialsInAuthenticator()).toEqual([]);

    expect(await upgradeOutcome()).toBe('offered');
    await byTest('upgrade-offer').waitFor({ state: 'visible', timeout: STEP_TIMEOUT_MS });
    await shot('upgrade-prompt');
    const reported = page.waitForResponse((r) => new URL(r.url()).pathname === '/passwordless-add-credential/complete' && r.status() === 200, { timeout: STEP_TIMEOUT_MS });
    await byTest('use-passkey').click();
    await reported;
    await waitForStatus(/^Passkey saved/);
    await passkeysListed(1);
    expect(await byTest('upgrade-offer').isHidden()).toBe(true);

    const [onDevice, ...more] = await credentialsInAuthenticator();
    expect(more).toEqual([]);
    expect(onDevice).toMatchObject({ isResidentCredential: true, rpId: 'localhost', userHandle: Buffer.from(adaId).toString('base64') });
    expect((await credentialsAtService(adaId)).map((c) => c.descriptor.id)).toEqual([base64url(onDevice.credentialId)]);
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
});
