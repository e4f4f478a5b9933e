/**
 * End to end in a real browser: the published browser client (@passwordlessdev/passwordless-client
 * 1.2.4, unmodified ESM bundle) on a page at http://localhost:<port>, talking cross-origin (so with
 * CORS preflights) to the real service on 127.0.0.1:<port>, with a CDP virtual authenticator
 * standing in for the platform passkey provider. Tokens are verified with the published Node SDK.
 */
import { randomUUID } from 'node:crypto';
import { PasswordlessClient, RegisterOptions, type VerifiedUser } from '@passwordlessdev/passwordless-nodejs';
import type { Browser, CDPSession, Page, Response } from 'playwright-core';
import type { Credential } from '../../src/express';
import { loadConfig } from '../../src/server/core/config';
import { startService, type RunningService } from '../../src/server/server';
import { createTestDatabase, MANAGEMENT_KEY, providers, uniqueAppId, warnIfPostgresSkipped, type TestDatabase } from '../support/testService';
import { addVirtualAuthenticator, browserSuite, launchChromium, requireChromium } from './support/chromium';
import { freeLoopbackPort, recordExchanges, type Exchange } from '../support/net';
import { startPageServer, type PageServer } from './support/pageServer';

const TEST_TIMEOUT_MS = 60_000;
const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const STANDARD_BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

warnIfPostgresSkipped();


/** What the browser client resolves with: the service's body on success, `{error}` otherwise. */
interface ClientResult {
  token?: string;
  error?: { from: 'client' | 'server'; errorCode: string; title: string; status?: number; detail?: string; type?: string };
}

type PageMethod = 'register' | 'signinWithAlias' | 'signinWithId' | 'signinWithDiscoverable';

/**
 * Calls one of the page's flows. The call is sent as an expression string (arguments as JSON), so
 * nothing from this file's compiled or instrumented code has to run inside the page.
 */
function callPage(page: Page, method: PageMethod, ...args: string[]): Promise<ClientResult> {
  return page.evaluate(`window.passkeys.${method}(${args.map((a) => JSON.stringify(a)).join(', ')})`) as Promise<ClientResult>;
}

/** Credential as the service lists it (GET /credentials/list). */
type ListedCredential = Credential;

const b64urlToB64 = (value: string) => Buffer.from(value, 'base64url').toString('base64');
const b64ToB64url = (value: string) => Buffer.from(value, 'base64').toString('base64url');

browserSuite('end-to-end passkey').each(providers())('browser passkey flows (client 1.2.4 + Node SDK 1.0.1) on %s', (provider) => {
  const userId = `user-${randomUUID()}`;
  const alias = 'alice@example.com';
  const nickname = 'Browser key';

  let database: TestDatabase | undefined;
  let service: RunningService | undefined;
  let exchanges: Exchange[] = [];
  let pages: PageServer | undefined;
  let browser: Browser | undefined;
  let page: Page;
  let cdp: CDPSession;
  let authenticatorId: string;
  let apiKey: string;
  let apiSecret: string;
  let sdk: PasswordlessClient;
  /** base64url id of the passkey made by the registration test; later tests need it. */
  let credentialId: string | undefined;

  const serviceUrl = () => service!.url;

  function registeredCredential(): string {
    if (!credentialId) throw new Error('the registration test did not produce a passkey; this test depends on it');
    return credentialId;
  }

  /** The virtual authenticator's view: its (only) credential. */
  async function authenticatorCredential() {
    const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    expect(credentials).toHaveLength(1);
    return credentials[0];
  }

  async function listCredentials(): Promise<ListedCredential[]> {
    const res = await fetch(`${serviceUrl()}/credentials/list?userId=${encodeURIComponent(userId)}`, { headers: { ApiSecret: apiSecret } });
    expect(res.status).toBe(200);
    const body: unknown = await res.json();
    // sdkCompatibleLists is off by default, so the list is the spec's bare array.
    expect(Array.isArray(body)).toBe(true);
    return body as ListedCredential[];
  }

  /** Runs a flow in the page and captures the service's /signin/begin answer the client received. */
  async function signinInPage(method: Exclude<PageMethod, 'register'>, ...args: string[]) {
    const [beginResponse, result] = await Promise.all([
      page.waitForResponse((r: Response) => r.url() === `${serviceUrl()}/signin/begin` && r.request().method() === 'POST'),
      callPage(page, method, ...args),
    ]);
    const begin = (await beginResponse.json()) as { session: string; data: { allowCredentials: unknown[]; rpId: string; challenge: string; userVerification: string } };
    return { result, begin, beginStatus: beginResponse.status() };
  }

  function expectVerifiedUser(verified: VerifiedUser | null, type: 'passkey_register' | 'passkey_signin', credential: string): void {
    expect(verified).not.toBeNull();
    expect(verified).toMatchObject({
      success: true,
      userId,
      type,
      origin: pages!.origin,
      rpid: 'localhost',
      rpId: 'localhost',
      nickname,
      // standard base64 of the raw id (what the .NET SDK needs; the Node SDK decodes either)
      credentialId: b64urlToB64(credential),
    });
    expect(verified!.tokenId).toMatch(GUID);
    expect(verified!.credentialId).toMatch(STANDARD_BASE64);
    expect(String(verified!.timestamp)).toMatch(ISO_UTC);
    expect(String(verified!.expiresAt)).toMatch(ISO_UTC);
    expect(typeof verified!.device).toBe('string');
  }

  beforeAll(async () => {
    const executablePath = requireChromium();
    database = await createTestDatabase(provider);
    const port = await freeLoopbackPort();
    service = await startService(
      loadConfig({ PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: database.url, MANAGEMENT_KEY, LOG_LEVEL: 'silent' }),
    );
    expect(service.url).toBe(`http://127.0.0.1:${port}`);
    exchanges = recordExchanges(service.server);

    const appId = uniqueAppId('browser');
    const created = await fetch(`${service.url}/admin/apps/${appId}/create`, {
      method: 'POST',
      headers: { ManagementKey: MANAGEMENT_KEY, 'Content-Type': 'application/json' },
      body: JSON.stringify({ adminEmail: 'admin@example.com' }),
    });
    const keys = (await created.json()) as { apiKey1: string; apiSecret1: string };
    expect(created.status).toBe(200);
    apiKey = keys.apiKey1;
    apiSecret = keys.apiSecret1;
    expect(apiKey).toMatch(new RegExp(`^${appId}:public:`));
    expect(apiSecret).toMatch(new RegExp(`^${appId}:secret:`));
    sdk = new PasswordlessClient(apiSecret, { baseUrl: service.url });

    pages = await startPageServer();
    browser = await launchChromium(executablePath);
    const context = await browser.newContext();
    page = await context.newPage();
    cdp = await context.newCDPSession(page);
    authenticatorId = await addVirtualAuthenticator(cdp);

    await page.goto(`${pages.origin}/?${new URLSearchParams({ apiKey, apiUrl: service.url })}`);
    await page.waitForFunction('window.passkeys !== undefined');
    expect(await page.evaluate('window.isSecureContext && window.passkeys.isBrowserSupported()')).toBe(true);
  }, TEST_TIMEOUT_MS);

  afterAll(async () => {
    // Each step runs even if an earlier one fails; the first failure is reported.
    const steps: Array<() => Promise<unknown> | undefined> = [() => browser?.close(), () => pages?.close(), () => service?.close(), () => database?.drop()];
    const errors: unknown[] = [];
    for (const step of steps) {
      try {
        await step();
      } catch (error) {
        errors.push(error);
      }
    }
    if (errors.length > 0) throw errors[0];
  }, TEST_TIMEOUT_MS);

  it(
    'registers a passkey with register(token, nickname); the verify_ token checks out with the Node SDK',
    async () => {
      const options = new RegisterOptions();
      options.userId = userId;
      options.username = 'alice';
      options.displayName = 'Alice Example';
      options.aliases = [alias];
      const { token } = await sdk.createRegisterToken(options);
      expect(token).toMatch(/^register_/);

      const result = await callPage(page, 'register', token, nickname);
      expect(result.error).toBeUndefined();
      expect(result.token).toMatch(/^verify_/);

      // The virtual authenticator now holds one discoverable credential for RP "localhost" whose
      // user handle is the UTF-8 bytes of our userId.
      const held = await authenticatorCredential();
      expect(held.isResidentCredential).toBe(true);
      expect(held.rpId).toBe('localhost');
      expect(held.userHandle).toBe(Buffer.from(userId).toString('base64'));
      credentialId = b64ToB64url(held.credentialId);

      expectVerifiedUser(await sdk.verifyToken(result.token!), 'passkey_register', credentialId);
      // Single use: a second verification fails, which this SDK reports as null.
      expect(await sdk.verifyToken(result.token!)).toBeNull();

      const [listed] = await listCredentials();
      expect(listed).toMatchObject({
        descriptor: { type: 'public-key', id: credentialId },
        userHandle: Buffer.from(userId).toString('base64'),
        signatureCounter: held.signCount,
        attestationFmt: 'none',
        rpid: 'localhost',
        origin: pages!.origin,
        nickname,
        userId,
        isDiscoverable: true,
      });
      expect(listed.publicKey).toMatch(STANDARD_BASE64);
      expect(listed.aaGuid).toMatch(GUID);
      expect(listed.createdAt).toMatch(ISO_UTC);
      expect(listed.lastUsedAt).toMatch(ISO_UTC);

      // Cross-origin from http://localhost:<page> to http://127.0.0.1:<service>: the client's
      // ApiKey / Client-Version headers force a CORS preflight, which the service must answer.
      for (const path of ['/register/begin', '/register/complete']) {
        const preflight = exchanges.find((e) => e.method === 'OPTIONS' && e.path === path);
        expect(preflight).toMatchObject({ status: 204, allowOrigin: '*' });
        expect(preflight!.requestHeaders.origin).toBe(pages!.origin);
        expect(preflight!.requestHeaders['access-control-request-method']).toBe('POST');
        const requested = String(preflight!.requestHeaders['access-control-request-headers']).split(',').map((h) => h.trim().toLowerCase());
        expect(requested).toEqual(expect.arrayContaining(['apikey', 'client-version', 'content-type']));
        const allowed = String(preflight!.allowHeaders).split(',').map((h) => h.trim().toLowerCase());
        expect(allowed).toEqual(expect.arrayContaining(requested));

        const post = exchanges.find((e) => e.method === 'POST' && e.path === path);
        expect(post).toMatchObject({ status: 200, allowOrigin: '*' });
        expect(post!.requestHeaders).toMatchObject({ origin: pages!.origin, apikey: apiKey, 'client-version': 'js-1.1.0' });
      }
    },
    TEST_TIMEOUT_MS,
  );

  const signins: Array<[string, Exclude<PageMethod, 'register'>, () => string[], boolean]> = [
    ['signinWithAlias(alias)', 'signinWithAlias', () => [alias], true],
    ['signinWithId(userId)', 'signinWithId', () => [userId], true],
    ['signinWithDiscoverable()', 'signinWithDiscoverable', () => [], false],
  ];

  it.each(signins)(
    'signs in with %s; the token verifies as passkey_signin for the right user',
    async (_name, method, args, namesUser) => {
      const credential = registeredCredential();
      const before = await authenticatorCredential();

      const { result, begin, beginStatus } = await signinInPage(method, ...args());
      expect(beginStatus).toBe(200);
      expect(begin.data.rpId).toBe('localhost');
      // Naming the user offers exactly that user's passkey; a discoverable sign-in offers none.
      expect(begin.data.allowCredentials).toEqual(namesUser ? [expect.objectContaining({ type: 'public-key', id: credential })] : []);

      expect(result.error).toBeUndefined();
      expect(result.token).toMatch(/^verify_/);
      const verified = await sdk.verifyToken(result.token!);
      expectVerifiedUser(verified, 'passkey_signin', credential);
      expect(verified).toMatchObject({ purpose: 'sign-in' });

      // The authenticator signed once more, and the service stored its new counter.
      const after = await authenticatorCredential();
      expect(after.signCount).toBeGreaterThan(before.signCount);
      const [listed] = await listCredentials();
      expect(listed.descriptor.id).toBe(credential);
      expect(listed.signatureCounter).toBe(after.signCount);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'the sign-in preflights were answered for the browser too',
    async () => {
      registeredCredential();
      for (const path of ['/signin/begin', '/signin/complete']) {
        expect(exchanges.find((e) => e.method === 'OPTIONS' && e.path === path)).toMatchObject({ status: 204, allowOrigin: '*' });
        expect(exchanges.filter((e) => e.method === 'POST' && e.path === path).map((e) => e.status)).toEqual([200, 200, 200]);
      }
    },
    TEST_TIMEOUT_MS,
  );

  it.each([
    ['signinWithAlias', 'nobody@example.com'],
    ['signinWithId', 'no-such-user'],
  ] as const)(
    '%s(%j) for an unknown user gets a decoy allow list that no authenticator answers',
    async (method, who) => {
      const credential = registeredCredential();
      const before = await listCredentials();
      const completions = exchanges.filter((e) => e.method === 'POST' && e.path === '/signin/complete').length;

      const { result, begin, beginStatus } = await signinInPage(method, who);
      // An unknown user looks like a known one (no user enumeration): a stable list of passkey ids...
      expect(beginStatus).toBe(200);
      expect(begin.data.allowCredentials.length).toBeGreaterThanOrEqual(1);
      expect(begin.data.allowCredentials).not.toContainEqual(expect.objectContaining({ id: credential }));
      expect((await signinInPage(method, who)).begin.data.allowCredentials).toEqual(begin.data.allowCredentials);
      // ...that no authenticator holds: the browser finds none, the client reports it, and nothing reaches signin/complete.
      expect(result.token).toBeUndefined();
      expect(result.error).toMatchObject({ from: 'client', errorCode: 'unknown' });
      expect(exchanges.filter((e) => e.method === 'POST' && e.path === '/signin/complete')).toHaveLength(completions);
      expect(await listCredentials()).toEqual(before);
    },
    TEST_TIMEOUT_MS * 3,
  );

  // Last: it adds a second passkey to the authenticator, which the tests above expect to hold one.
  it(
    'completes an older-generation (/v3) register token with the same client and the current public API; /v3 verifies its tokens with username',
    async () => {
      registeredCredential();
      const legacyUser = `legacy-${randomUUID()}`;
      const post = async (path: string, body: unknown) => {
        const res = await fetch(`${serviceUrl()}${path}`, { method: 'POST', headers: { ApiSecret: apiSecret, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
        return { status: res.status, body: (await res.json()) as unknown };
      };
      const issued = await post('/v3/register/token', { userId: legacyUser, username: 'bob', displayname: 'Bob' });
      expect(issued).toEqual({ status: 200, body: expect.stringMatching(/^register_/) });

      const registered = await callPage(page, 'register', issued.body as string, 'Legacy key');
      expect(registered.error).toBeUndefined();
      const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
      expect(credentials.map((c) => c.userHandle)).toContain(Buffer.from(legacyUser).toString('base64'));

      const { result } = await signinInPage('signinWithId', legacyUser);
      expect(result.error).toBeUndefined();
      // The registration's token, then a current sign-in's.
      for (const token of [registered.token, result.token]) {
        const verified = await post('/v3/signin/verify', { token });
        expect(verified).toEqual({ status: 200, body: expect.objectContaining({ success: true, username: legacyUser, origin: pages!.origin, rpid: 'localhost', nickname: 'Legacy key' }) });
        expect(Object.keys(verified.body as object)).toEqual(expect.not.arrayContaining(['userId', 'tokenId', 'type']));
      }
    },
    TEST_TIMEOUT_MS,
  );
});
