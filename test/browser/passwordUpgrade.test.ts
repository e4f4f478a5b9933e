/**
 * The browser module's automatic passkey upgrade and immediate sign-in (issue 35), in Debian's
 * Chromium with a CDP virtual authenticator, on a host page (the test host app with the module
 * served) at http://localhost:<port> and a real service process.
 *
 * What this Chromium (156) does, as measured here and recorded in docs/api.md ("The browser module"):
 * - `PublicKeyCredential.getClientCapabilities()` reports `conditionalCreate: true` and
 *   `immediateGet: true` (with or without a virtual authenticator).
 * - A conditional create (`mediation: 'conditional'`) never succeeds from a virtual authenticator:
 *   it rejects with NotAllowedError when the ceremony's timeout runs out, even right after a
 *   password form was submitted (no password manager vouches for the sign-in in headless
 *   Chromium). So the silent creation is tested with `navigator.credentials.create` wrapped to
 *   pass the request on without `mediation` (the page's module still asks for a conditional
 *   create and runs begin/create/complete itself); the user-present-less passkey is tested with
 *   the software authenticator (test/http/passkeyUpgrade.test.ts), and what Chromium itself does
 *   is tested as the outcome `declined`.
 * - Immediate mediation: `mediation: 'immediate'` is refused (TypeError: not a valid enum value of
 *   CredentialMediationRequirement); `publicKey.uiMode: 'immediate'` works: it resolves with a
 *   passkey present and rejects with NotAllowedError at once without one. The module tries both.
 */
import { randomUUID } from 'node:crypto';
import express from 'express';
import type { Server } from 'node:http';
import type { Browser, BrowserContext, CDPSession, Page } from 'playwright-core';
import type { PasskeyAddedEvent } from '../../src/express';
import { hostApp, type Host } from '../support/hostApp';
import { freeLoopbackPort } from '../support/net';
import { startServiceProcess, type ServiceProcess } from '../support/serviceProcess';
import type { TestApp } from '../support/testService';
import { addVirtualAuthenticator, browserSuite, launchChromium, requireChromium } from './support/chromium';

jest.setTimeout(90_000);

/** Short ceremonies, so that Chromium's refused conditional create (it waits out the timeout) ends in seconds. */
const CEREMONY_TIMEOUT_SECONDS = 5;
const PASSWORD = 'correct horse battery staple';

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>password upgrade</title></head>
<body>
<form id="login"><input id="email" autocomplete="username webauthn"><input id="password" type="password" autocomplete="current-password"></form>
<p id="status">loading</p>
<script type="module">
import { createPasskeys, PasskeyError } from '/passwordless-browser/passwordless.mjs';
window.passkeys = await createPasskeys();
window.PasskeyError = PasskeyError;
window.passwordLogin = async (email, password) => (await fetch('/password-login', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ email, password }) })).status;
/** Runs a call of the module and reports what it resolved or rejected with, as data. */
window.outcome = async (call) => {
  try {
    return { resolved: await call() };
  } catch (error) {
    return { rejected: { name: error.name, isPasskeyError: error instanceof PasskeyError, errorCode: error.errorCode } };
  }
};
document.getElementById('status').textContent = 'ready';
</script>
</body></html>`;

interface Outcome {
  resolved?: unknown;
  rejected?: { name: string; isPasskeyError: boolean; errorCode?: string };
}

browserSuite('password upgrade')('the browser module after a password sign-in, in Chromium', () => {
  let service: ServiceProcess;
  let app: TestApp;
  let browser: Browser | undefined;
  let h: Host;
  let server: Server;
  let origin: string;
  const added: PasskeyAddedEvent[] = [];
  const passwords = new Map<string, string>();

  beforeAll(async () => {
    const executablePath = requireChromium();
    service = await startServiceProcess({ CEREMONY_TIMEOUT_SECONDS: String(CEREMONY_TIMEOUT_SECONDS) });
    app = await service.createApp();
    const port = await freeLoopbackPort();
    origin = `http://localhost:${port}`;
    h = hostApp(service, app, { origins: origin, serveBrowserModule: true, exposeConfig: true, publicApiUrl: service.url, onPasskeyAdded: (event) => void added.push(event) });
    h.host.get('/', (_req, res) => void res.type('html').send(PAGE));
    // The host's own password login, as a passport-local app has it: req.logIn, then notePasswordSignIn.
    h.host.post('/password-login', express.json(), async (req, res, next) => {
      const { email, password } = req.body as { email: string; password: string };
      const id = passwords.get(email);
      if (!id || password !== PASSWORD) return void res.status(401).end();
      req.logIn((await h.users.findById(id)) as Express.User, (error) => {
        if (error) return next(error);
        h.auth.notePasswordSignIn(req);
        res.json({ id });
      });
    });
    server = await new Promise<Server>((resolve) => {
      const listening = h.host.listen(port, '127.0.0.1', () => resolve(listening));
    });
    browser = await launchChromium(executablePath);
  });

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => server?.close(resolve));
    await service?.stop();
  });

  /** A fresh browser profile with a virtual platform authenticator, on the host page, and a new password user. */
  async function freshVisitor(): Promise<{ context: BrowserContext; page: Page; cdp: CDPSession; authenticatorId: string; email: string; userId: string }> {
    const context = await browser!.newContext();
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    const authenticatorId = await addVirtualAuthenticator(cdp);
    const email = `pw${Math.random().toString(36).slice(2)}@example.com`;
    const user = await h.users.create({ userId: randomUUID(), email, username: email.split('@')[0], displayName: 'Password User' });
    passwords.set(email, user.id);
    await page.goto(`${origin}/`);
    await page.waitForFunction('window.passkeys !== undefined');
    return { context, page, cdp, authenticatorId, email, userId: user.id };
  }

  const call = (page: Page, expression: string) => page.evaluate(`window.outcome(() => ${expression})`) as Promise<Outcome>;
  const heldCredentials = async (cdp: CDPSession, authenticatorId: string) => (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials;

  it('reports what Chromium can do through capabilities()', async () => {
    const { context, page } = await freshVisitor();
    try {
      const capabilities = (await call(page, 'window.passkeys.capabilities()')).resolved as Record<string, boolean>;
      expect(capabilities).toMatchObject({ conditionalCreate: true, immediateGet: true, conditionalGet: true });
    } finally {
      await context.close();
    }
  });

  it('upgrade() after a password sign-in makes a passkey silently where the browser makes conditional creates, tells the host, and the passkey signs in', async () => {
    const { context, page, cdp, authenticatorId, email, userId } = await freshVisitor();
    try {
      expect(await page.evaluate(`window.passwordLogin(${JSON.stringify(email)}, ${JSON.stringify(PASSWORD)})`)).toBe(200);
      // A browser whose conditional create succeeds (this Chromium's never does, see above): the
      // request is passed on to the virtual authenticator without its mediation, which is recorded.
      await page.evaluate(`{
        const create = navigator.credentials.create.bind(navigator.credentials);
        window.createdWith = [];
        navigator.credentials.create = ({ mediation, ...rest }) => (window.createdWith.push(mediation), create(rest));
      }`);
      expect(await call(page, 'window.passkeys.upgrade()')).toEqual({ resolved: 'created' });
      expect(await page.evaluate('window.createdWith')).toEqual(['conditional']);

      const [held] = await heldCredentials(cdp, authenticatorId);
      const credentialId = Buffer.from(held.credentialId, 'base64').toString('base64url');
      const listed = await h.auth.client.listCredentials(userId);
      expect(listed.map((c) => [c.descriptor.id, c.upgrade])).toEqual([[credentialId, true]]);
      expect(added).toContainEqual(expect.objectContaining({ userId, passkey: expect.objectContaining({ id: credentialId }), via: 'add' }));
      // One password sign-in, one upgrade.
      expect(await call(page, 'window.passkeys.upgrade()')).toEqual({ resolved: 'not-offered' });

      await page.evaluate('window.passkeys.signOut()');
      const signedIn = await call(page, "window.passkeys.signIn({ mediation: 'immediate' })");
      expect(signedIn).toEqual({ resolved: expect.objectContaining({ id: userId, email }) });
    } finally {
      await context.close();
    }
  });

  it("upgrade() in this Chromium: its conditional create is refused, the outcome is 'declined', nothing is stored", async () => {
    const { context, page, cdp, authenticatorId, email, userId } = await freshVisitor();
    try {
      expect(await page.evaluate(`window.passwordLogin(${JSON.stringify(email)}, ${JSON.stringify(PASSWORD)})`)).toBe(200);
      expect(await call(page, 'window.passkeys.upgrade()')).toEqual({ resolved: 'declined' });
      expect(await heldCredentials(cdp, authenticatorId)).toEqual([]);
      expect(await h.auth.client.listCredentials(userId)).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("upgrade() does nothing where the browser lacks conditional create ('unsupported'), and without a password sign-in ('not-offered')", async () => {
    const { context, page, email } = await freshVisitor();
    try {
      // Not signed in: the host offers nothing.
      expect(await call(page, 'window.passkeys.upgrade()')).toEqual({ resolved: 'not-offered' });
      expect(await page.evaluate(`window.passwordLogin(${JSON.stringify(email)}, ${JSON.stringify(PASSWORD)})`)).toBe(200);
      await page.evaluate(`{
        const fetchOf = window.fetch.bind(window);
        window.fetched = [];
        window.fetch = (url, init) => (window.fetched.push(String(url)), fetchOf(url, init));
        PublicKeyCredential.getClientCapabilities = async () => ({ conditionalGet: true });
      }`);
      expect(await call(page, 'window.passkeys.upgrade()')).toEqual({ resolved: 'unsupported' });
      // Detected in the page: neither the host nor the service was asked (the host's one upgrade stays unspent).
      expect(await page.evaluate('window.fetched')).toEqual([]);
      await page.evaluate('delete PublicKeyCredential.getClientCapabilities');
      expect(await call(page, 'window.passkeys.capabilities()')).toEqual({ resolved: {} });
      expect(await call(page, 'window.passkeys.upgrade()')).toEqual({ resolved: 'unsupported' });
    } finally {
      await context.close();
    }
  });

  it("signIn({ mediation: 'immediate' }) rejects at once with no_passkey_on_device when the device has none, and resolves when it has one", async () => {
    const { context, page, cdp, authenticatorId, email, userId } = await freshVisitor();
    try {
      const none = await call(page, "window.passkeys.signIn({ mediation: 'immediate' })");
      expect(none).toEqual({ rejected: { name: 'PasskeyError', isPasskeyError: true, errorCode: 'no_passkey_on_device' } });

      // A passkey made the ordinary way (a password sign-up, then addPasskey), then signed out.
      expect(await page.evaluate(`window.passwordLogin(${JSON.stringify(email)}, ${JSON.stringify(PASSWORD)})`)).toBe(200);
      await page.evaluate('window.passkeys.addPasskey()');
      expect(await heldCredentials(cdp, authenticatorId)).toHaveLength(1);
      await page.evaluate('window.passkeys.signOut()');
      expect(await call(page, "window.passkeys.signIn({ mediation: 'immediate' })")).toEqual({ resolved: expect.objectContaining({ id: userId }) });
    } finally {
      await context.close();
    }
  });

  it("signIn({ mediation: 'immediate' }) falls back to the modal request where the browser does not report immediateGet", async () => {
    const { context, page, cdp, authenticatorId, email, userId } = await freshVisitor();
    try {
      expect(await page.evaluate(`window.passwordLogin(${JSON.stringify(email)}, ${JSON.stringify(PASSWORD)})`)).toBe(200);
      await page.evaluate('window.passkeys.addPasskey()');
      await page.evaluate('window.passkeys.signOut()');
      await page.evaluate(`{
        const get = navigator.credentials.get.bind(navigator.credentials);
        window.gotWith = [];
        navigator.credentials.get = (options) => (window.gotWith.push(options.mediation ?? options.publicKey.uiMode ?? 'modal'), get(options));
        PublicKeyCredential.getClientCapabilities = async () => ({ conditionalGet: true });
      }`);
      expect(await call(page, "window.passkeys.signIn({ mediation: 'immediate' })")).toEqual({ resolved: expect.objectContaining({ id: userId }) });
      expect(await page.evaluate('window.gotWith')).toEqual(['modal']);
      expect(await heldCredentials(cdp, authenticatorId)).toHaveLength(1);
    } finally {
      await context.close();
    }
  });
});
