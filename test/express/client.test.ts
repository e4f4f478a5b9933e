/**
 * The middleware's private-API client against a real service process, and against small local
 * servers that misbehave in the ways a network can.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PasswordlessApiError, PasswordlessClient, PasswordlessUnreachableError } from '../../src/express';
import { finishRegistration, signIn } from '../support/ceremonies';
import { MANAGEMENT_KEY, type TestApp } from '../support/testService';
import { freeLoopbackPort } from '../support/net';
import { startServiceProcess, type ServiceProcess } from '../support/serviceProcess';

jest.setTimeout(60_000);

let service: ServiceProcess;
let app: TestApp;
let client: PasswordlessClient;

beforeAll(async () => {
  service = await startServiceProcess();
  app = await service.createApp();
  client = new PasswordlessClient({ apiSecret: app.apiSecret, apiUrl: service.url });
});
afterAll(async () => {
  await client?.close();
  await service?.stop();
});

/** The rejection of `promise`, which must reject. */
async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('the call succeeded');
}

/** A passkey registered through the client's token and the software authenticator. */
async function registeredUser(userId: string, aliases: string[] = []) {
  const { token } = await client.createRegisterToken({ userId, username: `${userId}@example.com`, aliases });
  const registration = await finishRegistration(service, app, token);
  expect(registration.complete.status).toBe(200);
  return registration;
}

describe('PasswordlessClient against the service', () => {
  it('creates registration tokens and verifies what a passkey registration and sign-in yield', async () => {
    const { token } = await client.createRegisterToken({ userId: 'u-verify', username: 'ada', expiresAt: new Date(Date.now() + 60_000), aliases: ['ada@example.com'] });
    expect(token).toMatch(/^register_/);
    const registration = await finishRegistration(service, app, token);
    const registered = await client.verifyToken(registration.complete.body.token);
    expect(registered).toMatchObject({ success: true, userId: 'u-verify', type: 'passkey_register', tokenId: expect.stringMatching(/^[0-9a-f-]{36}$/) });

    const signin = await signIn(service, app, registration.credential, { alias: 'ada@example.com' });
    const verified = await client.verifyToken(signin.complete.body.token);
    expect(verified).toMatchObject({ success: true, userId: 'u-verify', type: 'passkey_signin', purpose: 'sign-in', rpId: 'app.example.com', origin: 'https://app.example.com' });
    expect(Buffer.from(verified.credentialId!, 'base64').toString('base64url')).toBe(registration.credential.idB64);
  });

  it('throws the service problem as a typed error: status, errorCode, title, detail', async () => {
    const invalid = await rejectionOf(client.createRegisterToken({ userId: 'x'.repeat(65), username: 'too-long-id' }));
    expect(invalid).toBeInstanceOf(PasswordlessApiError);
    expect(invalid).toMatchObject({ status: 400, errorCode: 'validation_failed', title: expect.any(String), detail: expect.stringContaining('userId') });
    expect((invalid as PasswordlessApiError).problem.errors).toHaveProperty('userId');

    const { token } = await client.generateAuthenticationToken({ userId: 'u-once', timeToLive: 60 });
    expect((await client.verifyToken(token)).type).toBe('generated_signin');
    const again = await rejectionOf(client.verifyToken(token));
    expect(again).toMatchObject({ name: 'PasswordlessApiError', status: 400, errorCode: 'token_already_used' });
    expect((again as Error).message).not.toContain(app.apiSecret);
  });

  it('manages aliases, credentials and users', async () => {
    const { credential } = await registeredUser('u-manage');
    await client.setAliases({ userId: 'u-manage', aliases: ['visible@example.com'], hashing: false });
    expect(await client.listAliases('u-manage')).toEqual([{ userId: 'u-manage', alias: expect.any(String), plaintext: 'visible@example.com' }]);

    const credentials = await client.listCredentials('u-manage');
    expect(credentials).toHaveLength(1);
    expect(credentials[0]).toMatchObject({ userId: 'u-manage', descriptor: { type: 'public-key', id: credential.idB64 }, aaGuid: expect.any(String) });

    expect((await client.listUsers()).map((u) => u.userId)).toContain('u-manage');
    const count = await client.getUsersCount();
    expect(count).toBeGreaterThanOrEqual(1);

    await client.deleteCredential(credential.idB64);
    expect(await client.listCredentials('u-manage')).toEqual([]);
    await client.deleteUser('u-manage');
    expect(await client.listAliases('u-manage')).toEqual([]);
    expect(await client.getUsersCount()).toBe(count - 1);
  });

  it('reads lists alike whether the app answers bare arrays or {values}', async () => {
    const sdkApp = await service.createApp();
    const res = await service.http.post(`/admin/apps/${sdkApp.appId}/features`).set('ManagementKey', MANAGEMENT_KEY).send({ sdkCompatibleLists: true });
    expect(res.status).toBe(204);
    const sdkClient = new PasswordlessClient({ apiSecret: sdkApp.apiSecret, apiUrl: service.url });
    try {
      await sdkClient.setAliases({ userId: 'u-sdk', aliases: ['sdk@example.com'] });
      expect((await service.http.get('/alias/list?userId=u-sdk').set('ApiSecret', sdkApp.apiSecret)).body).toHaveProperty('values');
      expect(await sdkClient.listAliases('u-sdk')).toHaveLength(1);
      expect((await sdkClient.listUsers()).map((u) => u.userId)).toEqual(['u-sdk']);
    } finally {
      await sdkClient.close();
    }
  });

  it('sends magic links, and switches them off through the app features', async () => {
    // A new app may mail only its admin address (the reference's first-day rule).
    await client.sendMagicLink({ emailAddress: 'admin@example.com', urlTemplate: 'https://app.example.com/magic?token=$TOKEN', userId: 'u-magic', timeToLive: 600 });
    const mail = readFileSync(service.mailFile, 'utf8');
    const token = decodeURIComponent(/token=([^\s&]+)/.exec(mail)![1]);
    expect(await client.verifyToken(token)).toMatchObject({ success: true, userId: 'u-magic', type: 'magic_link' });

    await client.setAppFeatures({ enableMagicLinks: false });
    const refused = await rejectionOf(client.sendMagicLink({ emailAddress: 'admin@example.com', urlTemplate: 'https://app.example.com/?t=$TOKEN', userId: 'u-magic' }));
    expect(refused).toMatchObject({ name: 'PasswordlessApiError', status: 403, errorCode: 'magic_links_disabled' });
    await client.setAppFeatures({ enableMagicLinks: true });
  });

  it('manages authentication configurations, with lifetimes as hh:mm:ss or seconds', async () => {
    await client.addAuthConfiguration({ purpose: 'payment', timeToLive: 300, userVerificationRequirement: 'required', performedBy: 'ops@example.com' });
    await client.editAuthConfiguration({ purpose: 'payment', timeToLive: '00:10:00', performedBy: 'ops@example.com' });
    const [payment] = await client.listAuthConfigurations('payment');
    expect(payment).toMatchObject({ purpose: 'payment', timeToLive: 600, userVerificationRequirement: 'required', createdBy: 'ops@example.com', editedBy: 'ops@example.com' });
    expect((await client.listAuthConfigurations()).map((c) => c.purpose)).toEqual(expect.arrayContaining(['sign-in', 'step-up', 'payment']));
    await client.deleteAuthConfiguration({ purpose: 'payment', performedBy: 'ops@example.com' });
    expect(await client.listAuthConfigurations('payment')).toEqual([]);
    expect(await rejectionOf(client.deleteAuthConfiguration({ purpose: 'payment', performedBy: 'ops@example.com' }))).toMatchObject({ status: 404 });
  });

  it('reads the event log once the app logs events', async () => {
    expect(await rejectionOf(client.getEventLog({ pageNumber: 1 }))).toMatchObject({ status: 403, errorCode: 'event_logging_disabled' });
    const res = await service.http.post(`/admin/apps/${app.appId}/features`).set('ManagementKey', MANAGEMENT_KEY).send({ eventLoggingIsEnabled: true });
    expect(res.status).toBe(204);
    await client.setAliases({ userId: 'u-events', aliases: ['events@example.com'] });
    const page = await client.getEventLog({ pageNumber: 1, numberOfResults: 10 });
    expect(page.tenantId).toBe(app.appId);
    expect(page.totalEventCount).toBeGreaterThanOrEqual(1);
    expect(page.events[0]).toMatchObject({ eventType: 'ApiUserSetAliases', subject: 'u-events' });
  });

  it('manages authenticator lists on apps with attestation, and reads the reports', async () => {
    expect(await rejectionOf(client.listAuthenticators(true))).toMatchObject({ status: 403, errorCode: 'attestation_not_supported_on_plan' });
    const enterprise = await service.createApp();
    expect((await service.http.post(`/admin/apps/${enterprise.appId}/features`).set('ManagementKey', MANAGEMENT_KEY).send({ plan: 'enterprise' })).status).toBe(204);
    const own = new PasswordlessClient({ apiSecret: enterprise.apiSecret, apiUrl: service.url });
    try {
      expect(await own.listAuthenticators(false)).toEqual([]);
      // This service runs without FIDO metadata: no AAGUID is known.
      expect(await rejectionOf(own.addAuthenticators(['6d44ba9b-f6ec-2e49-b930-0c8fe920cb73'], true))).toMatchObject({ status: 400, errorCode: 'unknown_authenticator' });
      await own.removeAuthenticators(['6d44ba9b-f6ec-2e49-b930-0c8fe920cb73']);
      // Snapshots are written once a day has ended: a new app has none yet.
      expect(await own.getCredentialsReport()).toEqual([]);
      expect(await own.getActiveUsersReport({ from: '2026-01-01', to: '2026-12-31' })).toEqual([]);
      expect(await rejectionOf(own.getActiveUsersReport({ from: '2026-13-01' }))).toMatchObject({ status: 400, errorCode: 'validation_failed' });
    } finally {
      await own.close();
    }
  });

  it('refuses a secret that is not an ApiSecret, without echoing it', () => {
    const publicKey = app.apiKey;
    expect(() => new PasswordlessClient({ apiSecret: publicKey })).toThrow(TypeError);
    try {
      new PasswordlessClient({ apiSecret: publicKey });
    } catch (error) {
      expect((error as Error).message).not.toContain(publicKey);
    }
  });
});

/** A local server with a handler of the test's choosing, on a free loopback port. */
async function misbehavingServer(handler: Parameters<typeof createServer>[1]): Promise<{ url: string; server: Server; close(): Promise<void> }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    server,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('PasswordlessClient when the network or the server misbehaves', () => {
  const secret = 'net:secret:0123456789abcdef0123456789abcdef';

  it('says the service is unreachable when nothing listens', async () => {
    const offline = new PasswordlessClient({ apiSecret: secret, apiUrl: `http://127.0.0.1:${await freeLoopbackPort()}` });
    const error = await rejectionOf(offline.getUsersCount());
    expect(error).toBeInstanceOf(PasswordlessUnreachableError);
    expect(error).toMatchObject({ errorCode: 'service_unreachable', status: 502 });
    expect((error as Error).message).not.toContain(secret);
    await offline.close();
  });

  it('gives up on a server that never answers after requestTimeoutMs', async () => {
    const silent = await misbehavingServer(() => undefined);
    const slow = new PasswordlessClient({ apiSecret: secret, apiUrl: silent.url, requestTimeoutMs: 300 });
    try {
      expect(await rejectionOf(slow.verifyToken('verify_x'))).toMatchObject({ name: 'PasswordlessUnreachableError', errorCode: 'service_timeout', status: 504 });
    } finally {
      await slow.close();
      await silent.close();
    }
  });

  it('turns an error answer without problem details into an unexpected_response error with its status', async () => {
    const broken = await misbehavingServer((_req, res) => res.writeHead(500, { 'Content-Type': 'text/html' }).end('<h1>oops</h1>'));
    const c = new PasswordlessClient({ apiSecret: secret, apiUrl: broken.url });
    try {
      expect(await rejectionOf(c.getUsersCount())).toMatchObject({ name: 'PasswordlessApiError', status: 500, errorCode: 'unexpected_response' });
    } finally {
      await c.close();
      await broken.close();
    }
  });

  it('retries a GET once when its connection drops, never a POST', async () => {
    const seen: string[] = [];
    const flaky = await misbehavingServer((req, res) => {
      seen.push(req.method ?? '');
      if (seen.length % 2 === 1) {
        req.socket.destroy(); // the first request of each pair: the connection drops
        return;
      }
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ count: 7 }));
    });
    const c = new PasswordlessClient({ apiSecret: secret, apiUrl: flaky.url });
    try {
      expect(await c.getUsersCount()).toBe(7);
      expect(seen).toEqual(['GET', 'GET']);
      seen.length = 0;
      expect(await rejectionOf(c.deleteUser('someone'))).toBeInstanceOf(PasswordlessUnreachableError);
      expect(seen).toEqual(['POST']);
    } finally {
      await c.close();
      await flaky.close();
    }
  });

  it('sends the ApiSecret header, JSON and a Client-Version, to the path under ApiUrl', async () => {
    const requests: { url?: string; headers: Record<string, unknown>; body: string }[] = [];
    const echo = await misbehavingServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        requests.push({ url: req.url, headers: req.headers, body });
        res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"token":"register_x"}');
      });
    });
    const c = new PasswordlessClient({ apiSecret: secret, apiUrl: `${echo.url}/api/` });
    try {
      await c.createRegisterToken({ userId: 'u', username: 'n', expiresAt: '2030-01-01T00:00:00Z' });
      expect(requests[0].url).toBe('/api/register/token');
      expect(requests[0].headers).toMatchObject({ apisecret: secret, 'content-type': 'application/json', 'client-version': expect.any(String) });
      expect(JSON.parse(requests[0].body)).toEqual({ userId: 'u', username: 'n', expiresAt: '2030-01-01T00:00:00.000Z' });
    } finally {
      await c.close();
      await echo.close();
    }
  });
});
