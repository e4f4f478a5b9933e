/**
 * Who may reach the console (issues 36 and 44), against a real service process: a signed-out visitor
 * is sent to sign in from every page the page modules register (and comes back to it), every action
 * is refused without a session and changes nothing, and the console is on without CONSOLE=on only
 * when PUBLIC_URL is this machine; without TOKEN_KEY_ENCRYPTION_KEY it runs only there. The route
 * list is read from the page modules themselves.
 */
import { request } from 'node:http';
import { startServiceProcess, type ServiceProcess } from '../support/serviceProcess';
import { expectProblem } from '../support/http';
import { MANAGEMENT_KEY, type TestApp, type TestDatabase } from '../support/testService';
import { concretePath, consoleRouteTable } from './consoleRouteTable';

jest.setTimeout(60_000);

/** A GET of `path` exactly as written (no client normalising `..` away), as a raw client may send it. */
function rawGet(base: string, path: string): Promise<{ status: number; type: string | undefined; location: string | undefined }> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}/`, { path, method: 'GET' }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, type: res.headers['content-type'], location: res.headers.location }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the console, signed out', () => {
  let service: ServiceProcess & { database: TestDatabase };
  let app: TestApp;
  const table = consoleRouteTable();

  beforeAll(async () => {
    // On without CONSOLE=on: PUBLIC_URL and HOST are this machine.
    service = await startServiceProcess({ PUBLIC_URL: 'http://localhost:{port}' });
    app = await service.createApp();
  });

  afterAll(async () => {
    await service?.stop();
  });

  it('registers pages and actions to check (the table is read from the page modules)', () => {
    expect(table.gets).toEqual(expect.arrayContaining(['/console/apps', '/console/operators', '/console/account']));
    expect(table.posts.map((p) => p.path)).toEqual(expect.arrayContaining(['/console/apps', '/console/operators/invite', '/console/operators/remove']));
    expect(table.posts.find((p) => p.path === '/console/operators/remove')?.stepUp).toBe(true);
  });

  it('sends a signed-out visitor of every page to sign in, with the page to come back to', async () => {
    for (const path of table.gets) {
      const target = concretePath(path, app.appId);
      const res = await service.http.get(target);
      expect({ target, status: res.status, location: res.headers.location }).toEqual({ target, status: 303, location: `/console/sign-in?next=${encodeURIComponent(target)}` });
    }
  });

  it('refuses every action without a session, as a page (401) that changes nothing', async () => {
    for (const { path } of table.posts) {
      const target = concretePath(path, app.appId);
      const res = await service.http.post(target).type('form').send({ appId: 'madebyavisitor', email: 'visitor@example.com', _csrf: 'x' });
      expect({ target, status: res.status, type: res.type }).toEqual({ target, status: 401, type: 'text/html' });
    }
    const apps = await service.http.get('/admin/apps/list').set('ManagementKey', MANAGEMENT_KEY).ok(() => true);
    expect(JSON.stringify(apps.body)).not.toContain('madebyavisitor');
  });

  it('serves the sign-in page with a strict CSP and sends an open redirect back home', async () => {
    const res = await service.http.get('/console/sign-in?next=https://evil.example/steal');
    expect(res.status).toBe(200);
    expect(res.headers['content-security-policy']).toContain("script-src 'self'");
    expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(res.text).toContain('data-next="/console/apps"');
    expect(res.text).not.toContain('evil.example');
  });

  it('normalises a path before taking it as the console\'s: dot segments leave the console', async () => {
    for (const next of ['/console/../admin/apps', '/console/%2e%2e/metrics']) {
      const res = await service.http.get(`/console/sign-in?next=${encodeURIComponent(next)}`);
      expect({ next, target: /data-next="([^"]*)"/.exec(res.text)?.[1] }).toEqual({ next, target: '/console/apps' });
    }
    // Not a console page sent to sign in: the API's own answer for a path it does not have.
    for (const path of ['/console/../health/nothing', '/console/%2e%2e/health/nothing', '/console/.%2E/health/nothing']) {
      expect({ path, ...(await rawGet(service.url, path)) }).toEqual({ path, status: 404, type: 'application/problem+json', location: undefined });
    }
    expect(await rawGet(service.url, '/console//apps')).toMatchObject({ status: 303, location: '/console/sign-in?next=%2Fconsole%2F%2Fapps' });
  });

  it('answers a console problem with exactly application/problem+json', async () => {
    const res = await service.http.post('/console/invite/complete').set('Sec-Fetch-Site', 'cross-site').set('Content-Type', 'application/json').send({ token: 'x' });
    expectProblem(res, 403, 'console_form_refused');
  });

  it('clears the session cookie at the path it lives at when signing out', async () => {
    const res = await service.http.post('/console/passwordless-logout').set('Origin', `http://localhost:${new URL(service.url).port}`).set('Content-Type', 'application/json').send({});
    expect(res.status).toBe(204);
    const cleared = ([] as string[]).concat(res.headers['set-cookie'] ?? []).find((c) => c.startsWith('console='));
    expect(cleared).toMatch(/^console=; Path=\/console; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; SameSite=Strict$/);
  });
});

describe('the console behind a proxy on this machine (PUBLIC_URL https, HOST loopback)', () => {
  it('is off unless CONSOLE=on says otherwise', async () => {
    const service = await startServiceProcess({ HOST: '127.0.0.1', PUBLIC_URL: 'https://auth.example.com' });
    try {
      expectProblem(await service.http.get('/console/sign-in'), 404, 'not_found');
    } finally {
      await service.stop();
    }
  });

  it('turned on, without TOKEN_KEY_ENCRYPTION_KEY, does not start and says why in one line; TRUST_PROXY is warned about', async () => {
    const service = await startServiceProcess({ HOST: '127.0.0.1', PUBLIC_URL: 'https://auth.example.com', CONSOLE: 'on', TRUST_PROXY: 'loopback' });
    try {
      const res = await service.http.get('/console/sign-in');
      expect(res.status).toBe(503);
      const lines = service.output().split('\n').filter((line) => line.includes('TOKEN_KEY_ENCRYPTION_KEY'));
      expect(lines).toEqual([expect.stringContaining('"msg":"the operator console does not start: TOKEN_KEY_ENCRYPTION_KEY is not set')]);
      expect(service.output()).toContain('"msg":"the operator console is on behind a proxy (TRUST_PROXY is set)');
    } finally {
      await service.stop();
    }
  });
});

describe('the console, given a body it cannot read', () => {
  let service: ServiceProcess & { database: TestDatabase };

  beforeAll(async () => {
    service = await startServiceProcess({ PUBLIC_URL: 'http://localhost:{port}', CONSOLE: 'on' });
  });

  afterAll(async () => {
    await service?.stop();
  });

  it('answers a form that is too large, has too many fields or is not decodable with a 4xx page, never a 5xx', async () => {
    const huge = await service.http.post('/console/sign-out').type('form').send(`_csrf=${'x'.repeat(10_000)}`);
    expect(huge.status).toBe(413);
    const many = await service.http.post('/console/sign-out').type('form').send(Array.from({ length: 1500 }, (_, i) => `f${i}=1`).join('&'));
    expect(many.status).toBe(413);
    const bad = await service.http.post('/console/invite/complete').set('Content-Type', 'application/json').send('{"token": ');
    expect(bad.status).toBe(400);
    const charset = await service.http.post('/console/sign-out').set('Content-Type', 'application/x-www-form-urlencoded; charset=klingon').send('a=1');
    expect(charset.status).toBe(415);
  });
});
