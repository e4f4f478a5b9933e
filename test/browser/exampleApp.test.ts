/**
 * The example host app as a user runs it: `npm run example` on a fresh EXAMPLE_DATA_DIR (it
 * starts the service itself), driven by Chromium with a virtual platform authenticator through
 * the page's own controls. Chromium answers a conditional (autofill) request from the virtual
 * authenticator on its own, and honours the WebAuthn Signal API on it, so both are seen end to end.
 * The screenshots in the README are taken here, so they stay true.
 */
import { execFileSync, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, CDPSession, Page } from 'playwright-core';
import { eventually } from '../support/eventually';
import { freeLoopbackPort } from '../support/net';
import { CLI, childEnv } from '../support/serviceProcess';
import { addVirtualAuthenticator, browserSuite, launchChromium, requireChromium } from './support/chromium';

const ROOT = join(__dirname, '..', '..');
const SCREENSHOTS = join(ROOT, 'docs', 'images');
/** The service's ceremonies are short here, so that waiting past one challenge lifetime takes seconds. */
const CEREMONY_TIMEOUT_SECONDS = 5;
/** The page restarts its autofill request this often (before the challenge, 7.5 s, expires). */
const AUTOFILL_RESTART_SECONDS = 2;
/** Chromium's virtual authenticators report this AAGUID; the example's service names it through AAGUID_NAMES_FILE. */
const VIRTUAL_AAGUID = '01020304-0506-0708-0102-030405060708';

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

jest.setTimeout(180_000);

interface VirtualCredential {
  credentialId: string;
  isResidentCredential: boolean;
  rpId: string;
  privateKey: string;
  userHandle: string;
  signCount: number;
}

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
  // A fresh data directory every run: the address is free, and the screenshots show the same one.
  const email = 'ada@example.com';

  const byTest = (name: string) => page.locator(`[data-test="${name}"]`);
  /** What the host's JSON API says, fetched by the page itself (with its session cookie). */
  const api = (path: string) =>
    page.evaluate(async (p) => {
      const res = await fetch(p);
      return { status: res.status, type: res.headers.get('content-type'), body: await res.json() };
    }, path);
  const statusText = () => byTest('status').textContent();
  const waitForStatus = (pattern: RegExp) =>
    page.waitForFunction((source) => new RegExp(source).test(document.querySelector('[data-test="status"]')?.textContent ?? ''), pattern.source, { timeout: STEP_TIMEOUT_MS });
  const credentialsInAuthenticator = async () => (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials as VirtualCredential[];
  const passkeysListed = (n: number) => page.waitForFunction((count) => document.querySelectorAll('[data-test="passkey"]').length === count, n, { timeout: STEP_TIMEOUT_MS });
  const shot = (name: string) => page.screenshot({ path: join(SCREENSHOTS, `${name}.png`) });
  /** Resolves once the page's next sign-in (POST /passwordless-login) succeeded: start it before the action that signs in. */
  const loggedIn = () => page.waitForResponse((r) => new URL(r.url()).pathname === '/passwordless-login' && r.status() === 200, { timeout: STEP_TIMEOUT_MS });

  async function expectSignedIn(): Promise<void> {
    await page.waitForFunction((e) => document.querySelector('[data-test="me"]')?.textContent?.includes(e), email, { timeout: STEP_TIMEOUT_MS });
    const me = await api('/api/me');
    expect(me).toMatchObject({ status: 200, body: { id: expect.any(String), email, username: 'ada', displayName: 'Ada Lovelace' } });
  }

  async function expectSignedOut(): Promise<void> {
    await page.waitForFunction(() => document.querySelector('[data-test="me"]')?.textContent === 'Signed out', undefined, { timeout: STEP_TIMEOUT_MS });
    expect(await api('/api/me')).toMatchObject({ status: 401, type: 'application/problem+json', body: { errorCode: 'not_signed_in' } });
  }

  /** Links of the dev mailbox already opened: each test waits for a new one. */
  const openedLinks = new Set<string>();

  /**
   * Opens the newest link of the example's dev mailbox that points at `path` and was not opened
   * before, reloading the mailbox until it is there (mail goes out after the page's request was
   * answered).
   */
  async function openMailedLink(path: string): Promise<string> {
    const href = await eventually(`a new ${path} link in the mailbox`, async () => {
      await page.goto(`${hostUrl}/dev/mailbox`);
      const hrefs = await page.locator(`[data-test="mail-link"][href*="${path}"]`).evaluateAll((links) => links.map((a) => a.getAttribute('href')!));
      return hrefs.find((h) => !openedLinks.has(h));
    }, STEP_TIMEOUT_MS, 100);
    openedLinks.add(href);
    await page.locator(`[data-test="mail-link"][href="${href}"]`).click();
    return href;
  }

  /** The example's app keys, as it keeps them (for calls a backend would make). */
  const keys = () => JSON.parse(readFileSync(join(dataDir, 'keys.json'), 'utf8')) as { apiKey: string; apiSecret: string };

  /** `npm run example` on `dataDir` and the two ports, in its own process group (so that a Ctrl-C can be sent as a terminal sends it). */
  async function startExample(): Promise<void> {
    output = '';
    example = spawn('npm', ['run', 'example'], {
      cwd: ROOT,
      detached: true,
      env: childEnv({
        PORT: String(port),
        SERVICE_PORT: String(servicePort),
        EXAMPLE_DATA_DIR: dataDir,
        LOG_LEVEL: 'info',
        CEREMONY_TIMEOUT_SECONDS: String(CEREMONY_TIMEOUT_SECONDS),
        AUTOFILL_RESTART_SECONDS: String(AUTOFILL_RESTART_SECONDS),
        // The step-ups below are made with passkeys minutes old (an hour is the default).
        NEW_PASSKEY_STEP_UP_DELAY_SECONDS: '0',
        AAGUID_NAMES_FILE: join(dataDir, 'aaguids.json'),
      }),
    });
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
    mkdirSync(SCREENSHOTS, { recursive: true });
    writeFileSync(join(dataDir, 'aaguids.json'), JSON.stringify({ [VIRTUAL_AAGUID]: { name: 'Chromium virtual authenticator' } }));
    [port, servicePort] = [await freeLoopbackPort(), await freeLoopbackPort()];
    hostUrl = `http://localhost:${port}`;
    serviceUrl = `http://127.0.0.1:${servicePort}`;
    await startExample();
    browser = await launchChromium(executablePath);
    const context = await browser.newContext({ viewport: { width: 900, height: 1000 } });
    page = await context.newPage();
    if (process.env.DEBUG_PAGE) {
      page.on('console', (m) => process.stderr.write(`[page ${m.type()}] ${m.text()}\n`));
      page.on('request', (r) => process.stderr.write(`[req] ${r.method()} ${r.url().slice(0, 120)}\n`));
    }
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

  it('started the service with the example app and keys it created, and serves the browser module and the published client', async () => {
    expect(output).toContain(`Passwordless service: ${serviceUrl}`);
    expect(output).toContain("Created the app 'example'");
    const config = await api('/passwordless-config');
    expect(config.body).toMatchObject({ apiUrl: serviceUrl, apiKey: expect.stringMatching(/^example:public:[0-9a-f]{32}$/), autofillRestartSeconds: AUTOFILL_RESTART_SECONDS });
    const served = await page.evaluate(async () => Promise.all(['/passwordless-browser/passwordless.mjs', '/passwordless-browser/passwordless-client.mjs'].map(async (p) => (await fetch(p)).status)));
    expect(served).toEqual([200, 200]);
    const endpoints = await api('/.well-known/passkey-endpoints');
    expect(endpoints.body).toEqual({ enroll: `${hostUrl}/`, manage: `${hostUrl}/` });
  });

  it('signs up: the page asks to check the mail; the link in the dev mailbox shows the names to confirm, then makes the passkey and signs in', async () => {
    await byTest('email').fill(email);
    await byTest('username').fill('ada');
    await byTest('displayName').fill('Ada Lovelace');
    await shot('sign-up');
    await byTest('register').click();
    await waitForStatus(/^Check your mail/);
    expect(await api('/api/me')).toMatchObject({ status: 401 });
    await openMailedLink('passwordless-verify-email');
    await byTest('confirm-signup').waitFor({ state: 'visible', timeout: STEP_TIMEOUT_MS });
    expect([await byTest('confirm-email').textContent(), await byTest('confirm-username').inputValue(), await byTest('confirm-displayName').inputValue()]).toEqual([email, 'ada', 'Ada Lovelace']);
    await byTest('confirm-signup').click();
    await expectSignedIn();
    expect(new URL(page.url()).hash).toBe('');
    await passkeysListed(1);
    expect(await byTest('passkey-provider').textContent()).toBe('Chromium virtual authenticator');
    expect(await credentialsInAuthenticator()).toHaveLength(1);
  });

  it('signs in through autofill with no click, also after the page waited past one challenge lifetime', async () => {
    // Signed out with the passkey in the authenticator: the page's autofill request is answered at once.
    const autofilled = loggedIn();
    await byTest('logout').click();
    await autofilled;
    await expectSignedIn();

    // Without the passkey, the autofill request waits; the page restarts it before its challenge expires.
    const [credential] = await credentialsInAuthenticator();
    await cdp.send('WebAuthn.removeCredential', { authenticatorId, credentialId: credential.credentialId });
    await byTest('logout').click();
    await expectSignedOut();
    const waitedFrom = Date.now();
    await page.waitForTimeout((CEREMONY_TIMEOUT_SECONDS * 1.5 + 2) * 1000);
    expect(Date.now() - waitedFrom).toBeGreaterThan(CEREMONY_TIMEOUT_SECONDS * 1.5 * 1000);
    const autofilledLater = loggedIn();
    await cdp.send('WebAuthn.addCredential', { authenticatorId, credential });
    await autofilledLater;
    await expectSignedIn();
    await shot('passkeys');
  });

  it('signs in with the buttons: discoverably, and by email (autofill off)', async () => {
    await page.goto(`${hostUrl}/?autofill=off`);
    await byTest('logout').click();
    await expectSignedOut();
    await shot('sign-in');
    await byTest('login').click();
    await expectSignedIn();
    await byTest('logout').click();
    await expectSignedOut();
    await byTest('signin-username').fill(email);
    await byTest('login-alias').click();
    await expectSignedIn();
  });

  it('renames a passkey: the new name shows in the list', async () => {
    await byTest('passkey-name').fill('My laptop');
    await byTest('rename').click();
    await waitForStatus(/^Passkey renamed/);
    await page.waitForFunction(() => (document.querySelector('[data-test="passkey-name"]') as HTMLInputElement | null)?.value === 'My laptop', undefined, { timeout: STEP_TIMEOUT_MS });
    expect((await api('/api/passkeys')).body.map((p: { nickname: string }) => p.nickname)).toEqual(['My laptop']);
  });

  it('adds a passkey after a step-up it starts by itself, and deletes it; it is gone at the service and from the authenticator', async () => {
    const [first] = await credentialsInAuthenticator();
    // Adding a passkey asks for a step-up with a passkey the user has, which the page runs with this
    // device's. This device has one already, so the new one cannot be made here (the service's
    // excludeCredentials): the user moves to another device, where the step-up still counts.
    const steppedUp = page.waitForResponse((r) => new URL(r.url()).pathname === '/passwordless-step-up' && r.status() === 204, { timeout: STEP_TIMEOUT_MS });
    await page.evaluate(() => void (document.querySelector('[data-test="status"]')!.textContent = ''));
    await byTest('add-passkey').click();
    await steppedUp;
    await waitForStatus(/./); // the browser's refusal to make a second passkey here, shown once the attempt ended
    expect(await credentialsInAuthenticator()).toHaveLength(1);
    // A second passkey on another device: an authenticator keeps one discoverable passkey per user.
    await cdp.send('WebAuthn.removeVirtualAuthenticator', { authenticatorId });
    authenticatorId = await addVirtualAuthenticator(cdp);
    const reported = page.waitForResponse((r) => new URL(r.url()).pathname === '/passwordless-add-credential/complete' && r.status() === 200, { timeout: STEP_TIMEOUT_MS });
    await byTest('add-passkey').click();
    await reported;
    await passkeysListed(2);
    const [second] = await credentialsInAuthenticator();
    expect(second).toBeDefined();

    // Deleting it needs the step-up too, which was made with the user's first passkey a moment ago.
    const secondId = Buffer.from(second.credentialId, 'base64').toString('base64url');
    await page.locator(`[data-test="passkey"][data-id="${secondId}"] [data-test="delete"]`).click();
    await waitForStatus(/^Passkey deleted/);
    await passkeysListed(1);
    expect((await api('/api/passkeys')).body.map((p: { id: string }) => p.id)).toEqual([Buffer.from(first.credentialId, 'base64').toString('base64url')]);
    // signalAllAcceptedCredentials: the browser's passkey manager drops what the server no longer has.
    for (let i = 0; i < 100 && (await credentialsInAuthenticator()).length > 0; i++) await page.waitForTimeout(50);
    expect(await credentialsInAuthenticator()).toEqual([]);
    // The first device is back, with the passkey that remains.
    await cdp.send('WebAuthn.addCredential', { authenticatorId, credential: first });
  });

  it('a passkey deleted by the backend makes the next sign-in fail with unknown_credential, and the authenticator drops it', async () => {
    const [credential] = await credentialsInAuthenticator();
    const id = Buffer.from(credential.credentialId, 'base64').toString('base64url');
    const deleted = await fetch(`${serviceUrl}/credentials/delete`, { method: 'POST', headers: { 'Content-Type': 'application/json', ApiSecret: keys().apiSecret }, body: JSON.stringify({ credentialId: id }) });
    expect(deleted.status).toBe(204);
    await byTest('logout').click();
    await expectSignedOut();
    await byTest('login').click();
    await waitForStatus(/recognize the passkey/);
    expect(await api('/api/me')).toMatchObject({ status: 401 });
    for (let i = 0; i < 100 && (await credentialsInAuthenticator()).length > 0; i++) await page.waitForTimeout(50);
    expect(await credentialsInAuthenticator()).toEqual([]);
  });

  it('recovers by email: the link signs in once (a second use, in another browser, is refused), then a passkey is added without a step-up and signs in', async () => {
    await byTest('recover-email').fill(email);
    await byTest('recover').click();
    await waitForStatus(/sign-in link is on its way/);
    // The mail is sent after the answer (the same answer for any address): wait for it in the mailbox.
    const link = await openMailedLink('passwordless-recover?');
    await byTest('recover-confirm').waitFor({ state: 'visible', timeout: STEP_TIMEOUT_MS });
    await shot('recovery');
    await byTest('recover-confirm').click();
    await expectSignedIn();
    expect(await statusText()).toMatch(/recovery link/);

    const elsewhere = await browser!.newContext();
    try {
      const other = await elsewhere.newPage();
      await other.goto(link);
      await other.locator('[data-test="recover-confirm"]').click();
      await other.waitForFunction(() => /used already/.test(document.querySelector('[data-test="status"]')?.textContent ?? ''), undefined, { timeout: STEP_TIMEOUT_MS });
      expect(await other.evaluate(async () => (await fetch('/api/me')).status)).toBe(401);
    } finally {
      await elsewhere.close();
    }

    // Minutes after a recovery, the session may add a passkey without a step-up.
    await byTest('add-passkey').click();
    await passkeysListed(1);
    expect(await credentialsInAuthenticator()).toHaveLength(1);
    // Signed out, the page's autofill request is answered with it at once.
    const autofilled = loggedIn();
    await byTest('logout').click();
    await autofilled;
    await expectSignedIn();
  });

  it('shows the signed-in state when the passkey list cannot be had, with the error beside it', async () => {
    // The example's secret is locked (offline, with the service's CLI): the host's call for the list fails.
    const cli = (...args: string[]) => execFileSync(process.execPath, [CLI, ...args], { env: childEnv({ DATABASE_URL: `file:${join(dataDir, 'passwordless.db')}` }), encoding: 'utf8' });
    const secretKeyId = keys().apiSecret.slice(-4);
    cli('apps', 'lock', 'example', secretKeyId);
    try {
      // Key checks are cached for a few seconds at the service: reload until the list fails.
      const error = await eventually(
        'the passkey list error',
        async () => {
          await page.goto(`${hostUrl}/?autofill=off`);
          await page.waitForFunction(() => document.querySelector('[data-test="me"]')?.textContent !== 'Loading…', undefined, { timeout: STEP_TIMEOUT_MS });
          return (await byTest('passkeys-error').textContent()) || undefined;
        },
        STEP_TIMEOUT_MS,
        250,
      );
      expect(error).toMatch(/^Your passkeys could not be listed: /);
      expect(await byTest('me').textContent()).toMatch(/^Signed in as Ada Lovelace/);
      expect(await byTest('logout').isVisible()).toBe(true);
    } finally {
      cli('apps', 'unlock', 'example', secretKeyId);
    }
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
    await page.goto(`${hostUrl}/?autofill=off`);
    await byTest('logout').click();
    await expectSignedOut();
    await byTest('login').click();
    await expectSignedIn();
  });

  // Last: the restart above began a fresh per-address budget, which the earlier steps have spent.
  it('lists where you are signed in, and signs another browser out from here (the step-up runs by itself)', async () => {
    const [credential] = await credentialsInAuthenticator();
    const elsewhere = await browser!.newContext();
    try {
      // Another browser, with the same passkey (a synced one), signs in with the button.
      const other = await elsewhere.newPage();
      const otherCdp = await elsewhere.newCDPSession(other);
      const otherAuthenticator = await addVirtualAuthenticator(otherCdp);
      await otherCdp.send('WebAuthn.addCredential', { authenticatorId: otherAuthenticator, credential });
      await other.goto(`${hostUrl}/?autofill=off`);
      await other.locator('[data-test="login"]').click();
      await other.waitForFunction((e) => document.querySelector('[data-test="me"]')?.textContent?.includes(e), email, { timeout: STEP_TIMEOUT_MS });
      // A virtual authenticator counts its signatures: this one's copy now has the higher count (the service refuses a count that goes back).
      const [used] = (await otherCdp.send('WebAuthn.getCredentials', { authenticatorId: otherAuthenticator })).credentials as VirtualCredential[];
      await cdp.send('WebAuthn.removeCredential', { authenticatorId, credentialId: credential.credentialId });
      await cdp.send('WebAuthn.addCredential', { authenticatorId, credential: used });

      await page.goto(`${hostUrl}/?autofill=off`);
      await byTest('sessions-summary').click();
      await page.waitForFunction(() => document.querySelectorAll('[data-test="session"]').length === 2, undefined, { timeout: STEP_TIMEOUT_MS });
      const listed = await page.locator('[data-test="session"]').evaluateAll((items) => items.map((li) => [(li as HTMLElement).dataset.current, li.textContent]));
      expect(listed).toEqual([
        ['true', expect.stringMatching(/^Chrome on Linux \(this browser\)passkey: /)],
        ['false', expect.stringMatching(/^Chrome on Linuxpasskey: /)],
      ]);
      await shot('sessions');

      const steppedUp = page.waitForResponse((r) => new URL(r.url()).pathname === '/passwordless-step-up' && r.status() === 204, { timeout: STEP_TIMEOUT_MS });
      await byTest('end-session').click();
      await steppedUp;
      await waitForStatus(/^That session is signed out/);
      await page.waitForFunction(() => document.querySelectorAll('[data-test="session"]').length === 1, undefined, { timeout: STEP_TIMEOUT_MS });
      expect(await other.evaluate(async () => (await fetch('/api/me')).status)).toBe(401);
      await expectSignedIn();
    } finally {
      await elsewhere.close();
    }
  });

  // After the others: it leaves a second user's passkey in the authenticator.
  it("a stranger's sign-up with someone's address decides nothing of their account: the owner, through the only link mailed, signs up with the names they confirm", async () => {
    const owner = 'grace@example.com';
    await page.goto(`${hostUrl}/?autofill=off`);
    await byTest('logout').click();
    await expectSignedOut();
    // The stranger, from a script of their own, starts a sign-up with the owner's address and names of their choosing.
    const stranger = await fetch(`${hostUrl}/passwordless-register`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ email: owner, username: 'stranger', displayName: 'Not The Owner' }) });
    expect(stranger.status).toBe(202);
    // The owner's own sign-up minutes later: the same answer, and no second mail (one per address in five minutes).
    await byTest('email').fill(owner);
    await byTest('username').fill('grace');
    await byTest('displayName').fill('Grace Hopper');
    await byTest('register').click();
    await waitForStatus(/^Check your mail/);
    const link = await openMailedLink('passwordless-verify-email');
    expect(new URL(link, hostUrl).searchParams.get('signup')).toBeTruthy();
    // The stranger's link: its page shows the stranger's names, and the owner puts their own.
    await byTest('confirm-signup').waitFor({ state: 'visible', timeout: STEP_TIMEOUT_MS });
    expect([await byTest('confirm-email').textContent(), await byTest('confirm-username').inputValue(), await byTest('confirm-displayName').inputValue()]).toEqual([owner, 'stranger', 'Not The Owner']);
    await byTest('confirm-username').fill('grace');
    await byTest('confirm-displayName').fill('Grace Hopper');
    await shot('sign-up-confirm');
    await byTest('confirm-signup').click();
    await page.waitForFunction((e) => document.querySelector('[data-test="me"]')?.textContent?.includes(e), owner, { timeout: STEP_TIMEOUT_MS });
    // Before, the link signed the owner up at once as {username: 'stranger', displayName: 'Not The Owner'}.
    expect(await api('/api/me')).toMatchObject({ status: 200, body: { email: owner, username: 'grace', displayName: 'Grace Hopper' } });
    // One mail went to the owner: the stranger's, which was the owner's to use.
    const mailbox = await (await fetch(`${hostUrl}/dev/mailbox`)).text();
    expect(mailbox.split(`to ${owner}</div>`).length - 1).toBe(1);
  });
});
