/**
 * Extensions pass through, in Chromium (issue 35, item 6): a host with the middleware and the
 * browser module, on a real service process; a CDP virtual authenticator with PRF (`hasPrf`). The
 * site's sign-in configuration asks for PRF; the page signs up, lists its passkey as PRF-capable,
 * and gets the same PRF output from every sign-in. Every byte the browser and the host send toward
 * the service passes a recording proxy: the PRF output is not among them.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, CDPSession, Page, Request } from 'playwright-core';
import { hostApp } from '../support/hostApp';
import { startServiceProcess, type ServiceProcess } from '../support/serviceProcess';
import { startTcpProxy, type TcpProxy } from '../support/tcpProxy';
import type { TestApp } from '../support/testService';
import { browserSuite, launchChromium, requireChromium } from './support/chromium';

jest.setTimeout(120_000);

/** The page of a site that uses the browser module, as served by the middleware (`serveBrowserModule`). */
const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>extensions</title></head>
<body>
<script type="module">
import { createPasskeys } from '/passwordless-browser/passwordless.mjs';
const b64url = (buffer) => btoa(String.fromCharCode(...new Uint8Array(buffer))).replace(/\\+/g, '-').replace(/\\//g, '_').replace(/=+$/, '');
window.passkeys = await createPasskeys();
/** What the page sees of the extension results, with the PRF output as base64url. */
window.shown = (extensions) => ({ ...extensions, prf: extensions.prf && { ...extensions.prf, results: extensions.prf.results && { first: b64url(extensions.prf.results.first) } } });
document.body.dataset.ready = 'yes';
</script>
</body></html>`;

interface Shown {
  prf?: { enabled?: boolean; results?: { first: string } };
  credProps?: { rk?: boolean };
}

browserSuite('passkey extensions')('PRF through the browser module in Chromium', () => {
  let service: ServiceProcess & { database: { drop(): Promise<void> } };
  let proxy: TcpProxy;
  const toService: Buffer[] = [];
  let app: TestApp;
  let hostServer: Server;
  let origin: string;
  let browser: Browser | undefined;
  let page: Page;
  let cdp: CDPSession;
  const pageRequests: Request[] = [];
  const email = 'prf-user@example.com';

  beforeAll(async () => {
    const executablePath = requireChromium();
    service = await startServiceProcess();
    const servicePort = Number(new URL(service.url).port);
    proxy = await startTcpProxy('127.0.0.1', servicePort, { record: (chunk) => void toService.push(Buffer.from(chunk)) });
    app = await service.createApp();
    const apiUrl = `http://127.0.0.1:${proxy.port}`;

    // The site's sign-ins ask for PRF (the built-in sign-in configuration, edited).
    const edited = await fetch(`${apiUrl}/auth-configs`, {
      method: 'POST',
      headers: { ApiSecret: app.apiSecret, 'Content-Type': 'application/json' },
      body: JSON.stringify({ purpose: 'sign-in', extensions: { prf: true }, performedBy: 'site admin' }),
    });
    expect(edited.status).toBe(204);

    // The host listens first, so that its origin is known to its own settings.
    hostServer = createServer();
    await new Promise<void>((resolve) => hostServer.listen(0, '127.0.0.1', resolve));
    origin = `http://localhost:${(hostServer.address() as AddressInfo).port}`;
    const { host } = hostApp({ url: apiUrl }, app, { origins: origin, exposeConfig: true, serveBrowserModule: true, register: { prf: true } });
    host.get('/', (_req, res) => void res.type('html').send(PAGE));
    hostServer.on('request', host);

    browser = await launchChromium(executablePath);
    const context = await browser.newContext();
    page = await context.newPage();
    page.on('request', (request) => void pageRequests.push(request));
    cdp = await context.newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: { protocol: 'ctap2', ctap2Version: 'ctap2_1', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true, hasPrf: true },
    });
    await page.goto(origin);
    await page.waitForFunction(() => document.body.dataset.ready === 'yes');
  });

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => hostServer?.close(resolve));
    await proxy?.close();
    await service?.stop();
  });

  const inPage = <T>(expression: string) => page.evaluate(expression) as Promise<T>;

  it('signs up with a PRF-capable passkey, lists it as one, and gets the same PRF output from every sign-in, which never reaches the service', async () => {
    const signedUp = await inPage<{ user: { email: string }; extensions: Shown }>(
      `window.passkeys.signUp({ email: ${JSON.stringify(email)}, username: ${JSON.stringify(email)} }).then((r) => ({ user: r.user, extensions: window.shown(r.extensions) }))`,
    );
    expect(signedUp.user.email).toBe(email);
    expect(signedUp.extensions.prf).toEqual({ enabled: true });

    const listed = await inPage<{ passkeys: { prfEnabled: boolean | null }[] }>('window.passkeys.passkeys()');
    expect(listed.passkeys.map((p) => p.prfEnabled)).toEqual([true]);

    const signInByAlias = async () => {
      await inPage('window.passkeys.signOut()');
      return inPage<{ user: { email: string }; extensions: Shown }>(
        `window.passkeys.signInWithExtensions({ alias: ${JSON.stringify(email)} }).then((r) => ({ user: r.user, extensions: window.shown(r.extensions) }))`,
      );
    };
    const first = await signInByAlias();
    expect(first.user.email).toBe(email);
    const output = first.extensions.prf?.results?.first;
    expect(output).toMatch(/^[A-Za-z0-9_-]{43}$/); // 32 bytes
    const second = await signInByAlias();
    expect(second.extensions.prf?.results?.first).toBe(output);

    // A discoverable sign-in knows no passkey to salt for: it signs in, without PRF.
    await inPage('window.passkeys.signOut()');
    const discoverable = await inPage<{ user: { email: string }; extensions: Shown }>('window.passkeys.signInWithExtensions().then((r) => ({ user: r.user, extensions: window.shown(r.extensions) }))');
    expect(discoverable.user.email).toBe(email);
    expect(discoverable.extensions.prf).toBeUndefined();

    // The immediate sign-in runs the same ceremony: its salt decoded for the browser, its output kept from the service.
    await inPage('window.passkeys.signOut()');
    const immediate = await inPage<{ email: string }>(`window.passkeys.signIn({ alias: ${JSON.stringify(email)}, mediation: 'immediate' })`);
    expect(immediate.email).toBe(email);

    // What the page posted to /signin/complete: the PRF entry, without its results.
    const completes = pageRequests.filter((r) => r.method() === 'POST' && r.url().endsWith('/signin/complete'));
    expect(completes).toHaveLength(4);
    expect(completes.map((request) => JSON.parse(request.postData() ?? '{}').response.clientExtensionResults)).toEqual([{ prf: {} }, { prf: {} }, {}, { prf: {} }]);

    // Every byte toward the service (the page's and the host's): no form of the output.
    const wire = Buffer.concat(toService);
    expect(wire.indexOf('"clientExtensionResults":{"prf":{}}')).toBeGreaterThan(-1); // the sign-ins did pass here
    const raw = Buffer.from(output!, 'base64url');
    for (const form of [raw, Buffer.from(output!), Buffer.from(raw.toString('base64')), Buffer.from(raw.toString('hex'))]) expect(wire.indexOf(form)).toBe(-1);
  });
});
