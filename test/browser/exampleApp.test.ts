/**
 * The example host app as a user runs it: `npm run example` on a fresh EXAMPLE_DATA_DIR (it
 * starts the service itself), driven by Chromium with a virtual platform authenticator through
 * the page's own controls.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, CDPSession, Page } from 'playwright-core';
import { freeLoopbackPort } from '../support/net';
import { childEnv } from '../support/serviceProcess';
import { addVirtualAuthenticator, browserSuite, launchChromium, requireChromium } from './support/chromium';

const ROOT = join(__dirname, '..', '..');

/** Whether any process of the group `pid` leads is still running. */
function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}
const STEP_TIMEOUT_MS = 30_000;

jest.setTimeout(120_000);

browserSuite('example host app')('the example host app (npm run example) in Chromium', () => {
  let dataDir: string;
  let example: ChildProcessWithoutNullStreams | undefined;
  let output = '';
  let port: number;
  let servicePort: number;
  let hostUrl: string;
  let serviceUrl: string;
  let browser: Browser | undefined;
  let page: Page;
  let cdp: CDPSession;
  let authenticatorId: string;
  const email = `ada-${Date.now()}@example.com`;

  const byTest = (name: string) => page.locator(`[data-test="${name}"]`);
  /** What the host's JSON API says, fetched by the page itself (with its session cookie). */
  const api = (path: string) => page.evaluate(async (p) => {
    const res = await fetch(p);
    return { status: res.status, type: res.headers.get('content-type'), body: await res.json() };
  }, path);

  async function expectSignedIn(): Promise<void> {
    await page.waitForFunction((e) => document.querySelector('[data-test="me"]')?.textContent?.includes(e), email, { timeout: STEP_TIMEOUT_MS });
    const me = await api('/api/me');
    expect(me).toMatchObject({ status: 200, body: { id: expect.any(String), email, username: 'ada', displayName: 'Ada Lovelace' } });
  }

  async function signOut(): Promise<void> {
    await byTest('logout').click();
    await page.waitForFunction(() => document.querySelector('[data-test="me"]')?.textContent === 'Signed out', undefined, { timeout: STEP_TIMEOUT_MS });
    const me = await api('/api/me');
    expect(me).toMatchObject({ status: 401, type: 'application/problem+json', body: { errorCode: 'not_signed_in' } });
  }

  /** `npm run example` on `dataDir` and the two ports, in its own process group (so that a Ctrl-C can be sent as a terminal sends it). */
  async function startExample(): Promise<void> {
    output = '';
    example = spawn('npm', ['run', 'example'], { cwd: ROOT, detached: true, env: childEnv({ PORT: String(port), SERVICE_PORT: String(servicePort), EXAMPLE_DATA_DIR: dataDir, LOG_LEVEL: 'info' }) });
    example.stdout.on('data', (chunk) => (output += chunk));
    example.stderr.on('data', (chunk) => (output += chunk));
    const started = Date.now();
    while (!output.includes(`Example host app: ${hostUrl}`)) {
      if (example.exitCode !== null) throw new Error(`npm run example exited:\n${output}`);
      if (Date.now() - started > 90_000) throw new Error(`npm run example did not start in 90 s:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  beforeAll(async () => {
    const executablePath = requireChromium();
    dataDir = mkdtempSync(join(tmpdir(), 'pwl-example-'));
    [port, servicePort] = [await freeLoopbackPort(), await freeLoopbackPort()];
    hostUrl = `http://localhost:${port}`;
    serviceUrl = `http://127.0.0.1:${servicePort}`;
    // Its own process group, so that a Ctrl-C (SIGINT to the whole group) can be sent as a terminal would.
    await startExample();
    browser = await launchChromium(executablePath);
    const context = await browser.newContext();
    page = await context.newPage();
    cdp = await context.newCDPSession(page);
    authenticatorId = await addVirtualAuthenticator(cdp);
    await page.goto(hostUrl);
    await page.waitForFunction(() => document.querySelector('[data-test="me"]')?.textContent === 'Signed out', undefined, { timeout: STEP_TIMEOUT_MS });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    if (example && groupAlive(example.pid!)) process.kill(-example.pid!, 'SIGKILL');
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('started the service with the example app and keys it created, and serves the browser client from the package', async () => {
    expect(output).toContain(`Passwordless service: ${serviceUrl}`);
    expect(output).toContain("Created the app 'example'");
    const config = await api('/passwordless-config');
    expect(config.body).toEqual({ apiUrl: serviceUrl, apiKey: expect.stringMatching(/^example:public:[0-9a-f]{32}$/) });
    const client = await page.evaluate(async () => (await fetch('/vendor/passwordless.mjs')).status);
    expect(client).toBe(200);
  });

  /** The sign-up link the example's service mailed to `to` (its MAIL_FILE, no SMTP configured). */
  function mailedLink(to: string): string {
    const mail = readFileSync(join(dataDir, 'mail.md'), 'utf8');
    const link = /https?:\/\/[^\s)>"]+passwordless-verify-email[^\s)>"]+/.exec(mail.slice(mail.lastIndexOf(to)))?.[0];
    if (!link) throw new Error(`no sign-up link for ${to} in the example's mail`);
    return link.replace(/&amp;/g, '&');
  }

  it('signs up: the page asks to check the mail, the mailed link makes the passkey and signs in (seen on /api/me)', async () => {
    await byTest('email').fill(email);
    await byTest('username').fill('ada');
    await byTest('displayName').fill('Ada Lovelace');
    await byTest('register').click();
    await page.waitForFunction(() => document.querySelector('[data-test="status"]')?.textContent?.startsWith('Check your mail'), undefined, { timeout: STEP_TIMEOUT_MS });
    // Nothing exists until the link is opened: the page is still signed out.
    expect(await api('/api/me')).toMatchObject({ status: 401 });
    await page.goto(mailedLink(email));
    await expectSignedIn();
    expect(new URL(page.url()).hash).toBe('');
    await page.waitForFunction(() => document.querySelectorAll('[data-test="passkey"]').length === 1, undefined, { timeout: STEP_TIMEOUT_MS });
  });

  it('signs out, then signs in discoverably', async () => {
    await signOut();
    await byTest('login').click();
    await expectSignedIn();
  });

  it('signs out, then signs in by email (the alias)', async () => {
    await signOut();
    await byTest('email').fill(email);
    await byTest('login-alias').click();
    await expectSignedIn();
  });

  it('adds a second passkey (on another authenticator): two are listed', async () => {
    // The first authenticator already holds a passkey for this user, so it would refuse to make
    // another; a second device is what "add a passkey" is for.
    await cdp.send('WebAuthn.removeVirtualAuthenticator', { authenticatorId });
    authenticatorId = await addVirtualAuthenticator(cdp);
    await byTest('add-passkey').click();
    await page.waitForFunction(() => document.querySelectorAll('[data-test="passkey"]').length === 2, undefined, { timeout: STEP_TIMEOUT_MS });
    const passkeys = await api('/api/passkeys');
    expect(passkeys.status).toBe(200);
    expect(passkeys.body).toHaveLength(2);
  });

  it('signs out and is refused /api/me and /api/passkeys', async () => {
    await signOut();
    expect(await api('/api/passkeys')).toMatchObject({ status: 401, body: { errorCode: 'not_signed_in' } });
  });

  it('stops the host and the service together on Ctrl-C (SIGINT to the whole process group, as a terminal sends it)', async () => {
    const pid = example!.pid!;
    const exited = new Promise((resolve) => example!.once('exit', resolve));
    process.kill(-pid, 'SIGINT');
    await exited;
    const deadline = Date.now() + 20_000;
    while (groupAlive(pid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(groupAlive(pid)).toBe(false);
    await expect(fetch(`${serviceUrl}/health/http`)).rejects.toThrow();
    await expect(fetch(`${hostUrl}/api/me`)).rejects.toThrow();
    // The service stopped gracefully, once: the host did not signal it again on top of the terminal's Ctrl-C.
    expect(output).toMatch(/"signal":"SIGINT".*"msg":"shutting down"/);
    expect(output).toMatch(/"clean":true,"msg":"stopped"/);
    expect(output).not.toContain('second signal');
  });

  it('keeps its app, keys, users and passkeys across a restart', async () => {
    await startExample();
    expect(output).not.toContain('Created the app');
    await page.reload();
    await page.waitForFunction(() => document.querySelector('[data-test="me"]')?.textContent === 'Signed out', undefined, { timeout: STEP_TIMEOUT_MS });
    await byTest('login').click();
    await expectSignedIn();
  });
});
