/**
 * Who may reach the console (issue 36), against a real service process: a signed-out visitor is
 * sent to sign in from every page the page modules register (and comes back to it), every action
 * is refused without a session and changes nothing, and the console is off unless configured so
 * on a HOST that is not loopback. The route list is read from the page modules themselves.
 */
import { startServiceProcess, type ServiceProcess } from '../support/serviceProcess';
import { MANAGEMENT_KEY, type TestApp, type TestDatabase } from '../support/testService';
import { concretePath, consoleRouteTable } from './consoleRouteTable';

jest.setTimeout(60_000);

describe('the console, signed out', () => {
  let service: ServiceProcess & { database: TestDatabase };
  let app: TestApp;
  const table = consoleRouteTable();

  beforeAll(async () => {
    service = await startServiceProcess({ PUBLIC_URL: 'http://localhost:{port}', CONSOLE: 'on' });
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
});

describe('the console on a HOST that is not loopback', () => {
  it('is off unless CONSOLE=on says otherwise', async () => {
    const service = await startServiceProcess({ HOST: '0.0.0.0', PUBLIC_URL: 'http://localhost:{port}' });
    try {
      const res = await service.http.get('/console/sign-in');
      expect(res.status).toBe(404);
      expect(res.type).toBe('application/problem+json');
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
