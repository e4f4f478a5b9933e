import type { Response } from 'supertest';
import { loadMigrations } from '../../src/server/store/migrate';
import { expectProblem, managementClient, type ManagementClient } from '../support/http';
import { MANAGEMENT_KEY, providers, startTestService, uniqueAppId, warnIfPostgresSkipped, type TestService } from '../support/testService';

warnIfPostgresSkipped();

/** The browser client's endpoints, which must be callable cross-origin. */
const PUBLIC_ENDPOINTS = ['/register/begin', '/register/complete', '/signin/begin', '/signin/complete'];
const underBothBases = (paths: string[]) => paths.flatMap((p) => [p, `/api${p}`]);

const HEADER_VARIANTS: [string, Record<string, string>][] = [
  ['no key', {}],
  ['a malformed ApiKey', { ApiKey: 'malformed' }],
  ['a malformed ApiSecret', { ApiSecret: 'malformed' }],
  ['the ManagementKey', { ManagementKey: MANAGEMENT_KEY }],
  ['a wrong ManagementKey', { ManagementKey: 'wrong-management-key-value' }],
];

const UNKNOWN_ROUTES: ['get' | 'post', string][] = [
  ['get', '/no-such-route'],
  ['post', '/no-such-route'],
  ['get', '/api/no-such-route'],
  ['post', '/register/no-such-step'],
  ['post', '/signin/no-such-step'],
  ['get', '/credentials/no-such-thing'],
  ['post', '/api/credentials/no-such-thing'],
  ['get', '/admin/no-such-thing'],
  ['get', '/admin/apps/someapp/no-such-thing'],
  ['post', '/api/admin/apps/someapp/no-such-thing'],
  ['get', '/health/no-such-check'],
];

describe.each(providers())('HTTP plumbing on %s', (provider) => {
  let svc: TestService;
  let admin: ManagementClient;
  beforeAll(async () => {
    svc = await startTestService(provider);
    admin = managementClient(svc);
  });
  afterAll(() => svc.close());

  const withHeaders = (method: 'get' | 'post' | 'options', path: string, headers: Record<string, string>) => {
    const request = svc.http[method](path);
    for (const [name, value] of Object.entries(headers)) request.set(name, value);
    return request;
  };

  describe('unknown routes', () => {
    it.each(HEADER_VARIANTS)('are 404 problems with %s', async (_label, headers) => {
      for (const [method, path] of UNKNOWN_ROUTES) {
        const res = await withHeaders(method, path, headers);
        expect({ route: `${method} ${path}`, status: res.status }).toEqual({ route: `${method} ${path}`, status: 404 });
        expectProblem(res, 404, 'not_found');
      }
    });
  });

  describe('known routes asked with the wrong method', () => {
    it.each([
      ['get', '/register/token', 'POST'],
      ['get', '/api/signin/verify', 'POST'],
      ['delete', '/credentials/list', 'GET, HEAD, POST'],
      ['put', '/api/alias', 'POST'],
      ['get', '/admin/apps/someapp/create', 'POST'],
      ['post', '/users/count', 'GET, HEAD'],
    ] as const)('%s %s is a 405 problem naming the allowed methods', async (method, path, allow) => {
      const res = await svc.http[method](path).set('ApiSecret', 'malformed');
      expectProblem(res, 405, 'method_not_allowed');
      expect(res.headers.allow).toBe(allow);
    });
  });

  describe('malformed paths', () => {
    it.each(['/admin/apps/%E0%A4%A/create', '/api/admin/apps/%ZZ/features', '/admin/apps/ok%ZZ/api-keys/abcd/lock'])(
      '%s is a 400 problem, not a server error',
      async (path) => {
        const res = await svc.http.get(path).set('ManagementKey', MANAGEMENT_KEY);
        const post = await svc.http.post(path).set('ManagementKey', MANAGEMENT_KEY);
        for (const r of [res, post]) expectProblem(r, 400, 'bad_request');
      },
    );
  });

  describe('request ids', () => {
    it('tags every response with X-Request-Id and puts it in problem bodies as traceId', async () => {
      const res = await svc.http.get('/no-such-route');
      expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
      expect(res.body.traceId).toBe(res.headers['x-request-id']);
      expect((await svc.http.get('/health/http')).headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    });

    it("keeps a caller's well-formed X-Request-Id and replaces anything else", async () => {
      const kept = await svc.http.get('/no-such-route').set('X-Request-Id', 'edge-42.abc');
      expect([kept.headers['x-request-id'], kept.body.traceId]).toEqual(['edge-42.abc', 'edge-42.abc']);
      const replaced = await svc.http.get('/no-such-route').set('X-Request-Id', '<script>');
      expect(replaced.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    });
  });

  describe('request bodies', () => {
    const createWithRawBody = (body: string, contentType = 'application/json') =>
      admin.post(`/admin/apps/${uniqueAppId()}/create`).set('Content-Type', contentType).send(body);

    it.each(['{"adminEmail":', '{', 'nul', '[1,', "{'adminEmail': 'a@b.c'}", '"just a string"', 'null', '42'])(
      'answers malformed or non-object JSON %p with a 400 invalid_json problem',
      async (body) => {
        expectProblem(await createWithRawBody(body), 400, 'invalid_json');
      },
    );

    it.each([[[]], [{ adminEmail: {} }], [{ adminEmail: null }], [{ adminEmail: ['a@b.c'] }], [{ adminEmail: 'a@b.c', plan: 7 }]])(
      'answers well-formed JSON of the wrong shape %j with a 400 validation problem naming the field',
      async (body) => {
        const res = await admin.post(`/admin/apps/${uniqueAppId()}/create`).send(body);
        expectProblem(res, 400, 'validation_failed');
        expect(Object.keys(res.body.errors).length).toBeGreaterThan(0);
      },
    );

    it('answers a body over 64 KiB with a 413 problem', async () => {
      const body = JSON.stringify({ adminEmail: 'admin@example.com', padding: 'x'.repeat(64 * 1024) });
      expectProblem(await createWithRawBody(body), 413, 'payload_too_large');
    });

    it('accepts a body just under the limit', async () => {
      const padding = 'x'.repeat(60 * 1024);
      const res = await admin.post(`/admin/apps/${uniqueAppId()}/create`).send({ adminEmail: 'admin@example.com', padding });
      expect(res.status).toBe(200);
    });

    it.each([
      ['text/plain', '{"adminEmail":"admin@example.com"}'],
      ['application/x-www-form-urlencoded', 'adminEmail=admin%40example.com'],
      ['application/xml', '<adminEmail>admin@example.com</adminEmail>'],
      ['application/json; charset=latin1', '{"adminEmail":"admin@example.com"}'],
    ])('answers a %s body with a 415 problem', async (contentType, body) => {
      const res = await createWithRawBody(body, contentType);
      expectProblem(res, 415, 'unsupported_media_type');
      expect(res.body.detail).toMatch(/JSON/);
    });

    it('accepts a bodiless POST without a content type', async () => {
      const { appId } = await svc.createApp();
      expect((await admin.post(`/admin/apps/${appId}/freeze`)).status).toBe(204);
    });
  });

  describe('base paths', () => {
    it.each(['/health/http', '/api/health/http', '//health/http', '/api//health/http', '//api/health/http'])('serves %s', async (path) => {
      const res = await svc.http.get(path);
      expect(res.status).toBe(200);
      expect(res.text).toBe('Healthy');
    });

    it('serves the management API at / and under /api, over the same data', async () => {
      const appId = uniqueAppId();
      expect((await admin.get(`/api/admin/apps/${appId}/available`)).body).toEqual({ available: true });
      expect((await admin.post(`/api/admin/apps/${appId}/create`, { adminEmail: 'admin@example.com' })).status).toBe(200);
      expect((await admin.get(`/admin/apps/${appId}/available`)).body).toEqual({ available: false });
      expect((await admin.get(`/api/admin/apps/${appId}/available`)).body).toEqual({ available: false });
    });
  });

  describe('security headers', () => {
    const answers: [string, () => Promise<Response>][] = [
      ['a 200', () => svc.http.get('/health/http')],
      ['a JSON 200', () => admin.get('/admin/apps')],
      ['a 404', () => svc.http.get('/no-such-route')],
      ['a 401', () => svc.http.get('/admin/apps')],
      ['a 400', () => admin.post('/admin/apps/x/create').set('Content-Type', 'application/json').send('{')],
    ];

    it.each(answers)('are on %s', async (_label, send) => {
      const res = await send();
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['content-security-policy']).toEqual(expect.stringContaining('default-src'));
      expect(res.headers['referrer-policy']).toBe('no-referrer');
      expect(res.headers['x-powered-by']).toBeUndefined();
    });
  });

  describe('CORS', () => {
    const preflight = (path: string) =>
      withHeaders('options', path, {
        Origin: 'https://shop.example.com',
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'apikey, content-type, client-version',
      });

    it.each(underBothBases(PUBLIC_ENDPOINTS))('answers a preflight to %s with 204 and permissive headers', async (path) => {
      const res = await preflight(path);
      expect(res.status).toBe(204);
      expect(res.headers['access-control-allow-origin']).toBe('*');
      expect(res.headers['access-control-allow-methods']).toMatch(/\bPOST\b/);
      const allowed = String(res.headers['access-control-allow-headers']).toLowerCase().split(/\s*,\s*/);
      expect(allowed).toEqual(expect.arrayContaining(['apikey', 'content-type', 'client-version']));
    });

    it.each(underBothBases(PUBLIC_ENDPOINTS))('lets the browser read a 4xx from %s sent with a bad ApiKey', async (path) => {
      const res = await withHeaders('post', path, { Origin: 'https://shop.example.com', ApiKey: 'badkey' }).send({});
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      expect(res.headers['content-type']).toBe('application/problem+json');
      expect(res.headers['access-control-allow-origin']).toBe('*');
    });

    it.each([
      ['get', '/admin/apps'],
      ['options', '/admin/apps'],
      ['post', '/register/token'],
      ['get', '/credentials/list'],
      ['post', '/api/signin/verify'],
    ] as const)('is not offered on the private path %s %s', async (method, path) => {
      const res = await withHeaders(method, path, { Origin: 'https://evil.example.com', 'Access-Control-Request-Method': 'POST' });
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
    });
  });

  describe('health checks', () => {
    it('/api/health/http answers Healthy as plain text to any method', async () => {
      for (const method of ['get', 'post', 'head'] as const) {
        const res = await svc.http[method]('/api/health/http');
        expect(res.status).toBe(200);
        expect(res.headers['content-type']).toMatch(/^text\/plain/);
        if (method !== 'head') expect(res.text).toBe('Healthy');
      }
    });

    it('/api/health/storage reports the database and the schema as healthy', async () => {
      const res = await svc.http.get('/api/health/storage');
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        status: 'Healthy',
        elapsedMilliseconds: expect.any(Number),
        results: {
          orm: { status: 'Healthy', elapsedMilliseconds: expect.any(Number), data: { migrations: loadMigrations(provider).length } },
          [provider]: { status: 'Healthy', elapsedMilliseconds: expect.any(Number), data: {} },
        },
      });
    });

    it('/api/health/mail has nothing to check when no SMTP server is configured', async () => {
      const res = await svc.http.get('/api/health/mail');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ status: 'Healthy', elapsedMilliseconds: expect.any(Number), results: {} });
    });
  });
});
