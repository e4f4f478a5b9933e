import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import supertest from 'supertest';
import { createApp } from '../../src/server/app';
import { loadConfig } from '../../src/server/core/config';
import { createLogger } from '../../src/server/core/logger';
import { createServices, type Services } from '../../src/server/services';
import { openStore, sqliteFilename } from '../../src/server/store';
import { eventually } from '../support/eventually';
import { expectProblem } from '../support/http';
import { privateApi } from '../support/privateApi';
import { startTcpProxy, type TcpProxy } from '../support/tcpProxy';
import { MANAGEMENT_KEY, createTestDatabase, startTestService, warnIfPostgresSkipped, type TestDatabase, type TestService } from '../support/testService';

warnIfPostgresSkipped();

const storage = (http: ReturnType<typeof supertest>) => http.get('/api/health/storage');

describe('storage health on SQLite', () => {
  let svc: TestService;
  let dir: string;
  beforeAll(async () => {
    svc = await startTestService('sqlite');
    dir = dirname(sqliteFilename(svc.config.databaseUrl));
  });
  afterAll(() => svc.close());

  it('turns 503 when the database directory is moved away, and 200 again when it is back, without a restart', async () => {
    // Moved, not made unreadable: root (CI runs as root) passes every permission check.
    expect((await storage(svc.http)).status).toBe(200);
    renameSync(dir, `${dir}-away`);
    try {
      const res = await storage(svc.http);
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({ status: 'Unhealthy', results: { sqlite: { status: 'Unhealthy', data: { error: 'DatabaseFileMissing' } } } });
    } finally {
      renameSync(`${dir}-away`, dir);
    }
    expect((await storage(svc.http)).body).toMatchObject({ status: 'Healthy', results: { sqlite: { status: 'Healthy' }, orm: { status: 'Healthy' } } });
  });

  it('turns 503 when another file takes the database path', async () => {
    renameSync(dir, `${dir}-away`);
    try {
      mkdirSync(dir);
      writeFileSync(sqliteFilename(svc.config.databaseUrl), '');
      const res = await storage(svc.http);
      expect(res.status).toBe(503);
      expect(res.body.results.sqlite.data).toEqual({ error: 'DatabaseFileReplaced' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
      renameSync(`${dir}-away`, dir);
    }
    expect((await storage(svc.http)).status).toBe(200);
  });
});

(process.env.TEST_DATABASE_URL ? describe : describe.skip)('storage health on PostgreSQL', () => {
  let database: TestDatabase;
  let proxy: TcpProxy;
  let services: Services;
  let http: ReturnType<typeof supertest>;
  beforeAll(async () => {
    database = await createTestDatabase('postgresql');
    const target = new URL(database.url);
    proxy = await startTcpProxy(target.hostname, Number(target.port || 5432));
    const proxied = new URL(database.url);
    proxied.hostname = '127.0.0.1';
    proxied.port = String(proxy.port);
    const config = loadConfig({ DATABASE_URL: proxied.toString(), MANAGEMENT_KEY, LOG_LEVEL: 'silent' });
    const store = openStore(config.databaseUrl);
    await store.migrate();
    services = createServices(config, store);
    http = supertest(createApp(services, createLogger('silent')));
  });
  afterAll(async () => {
    await proxy.restore().catch(() => undefined);
    await services.close();
    await proxy.close();
    await database.drop();
  });

  it('turns 503 when the database is cut off, and 200 again when it is reachable', async () => {
    expect((await storage(http)).body).toMatchObject({ status: 'Healthy', results: { postgresql: { status: 'Healthy' }, orm: { status: 'Healthy' } } });
    await proxy.cut();
    const down = await eventually('storage health to fail', async () => {
      const res = await storage(http);
      return res.status === 503 ? res : undefined;
    });
    expect(down.body).toMatchObject({ status: 'Unhealthy', results: { postgresql: { status: 'Unhealthy' } } });
    await proxy.restore();
    await eventually('storage health to recover', async () => ((await storage(http)).status === 200 ? true : undefined));
  });
});

describe('mail health without SMTP', () => {
  let svc: TestService;
  let mailDir: string;
  beforeAll(async () => {
    const tmp = join(__dirname, '..', '..', '.test-tmp');
    mailDir = join(tmp, `outbox-${Date.now().toString(36)}`);
    svc = await startTestService('sqlite', { MAIL_FILE: join(mailDir, 'mail.md') });
  });
  afterAll(async () => {
    await svc.close();
    rmSync(mailDir, { recursive: true, force: true });
  });

  it('turns 503 when MAIL_FILE cannot be written (a magic link then fails with 502), and 200 when it can again', async () => {
    const app = await svc.createApp();
    expect((await svc.http.get('/api/health/mail')).body).toEqual({ status: 'Healthy', elapsedMilliseconds: expect.any(Number), results: {} });
    renameSync(mailDir, `${mailDir}-away`);
    try {
      const res = await svc.http.get('/api/health/mail');
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({ status: 'Unhealthy', results: { file: { status: 'Unhealthy', data: { error: 'ENOENT' } } } });
      const send = await privateApi(svc, app).post('/magic-links/send', { emailAddress: 'admin@example.com', urlTemplate: 'https://x.example.com/?t=$TOKEN', userId: 'u' });
      expectProblem(send, 502, 'mail_delivery_failed');
    } finally {
      renameSync(`${mailDir}-away`, mailDir);
    }
    expect((await svc.http.get('/api/health/mail')).status).toBe(200);
  });
});

describe('version health', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService('sqlite');
  });
  afterAll(() => svc.close());

  it("answers the service's version and its Node.js runtime's as the version result's data, to anyone, at /health and /api/health", async () => {
    const { version } = JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as { version: string };
    for (const path of ['/health/version', '/api/health/version']) {
      const res = await svc.http.get(path);
      expect({ status: res.status, type: res.headers['content-type'] }).toEqual({ status: 200, type: 'application/json; charset=utf-8' });
      expect(res.body).toEqual({
        status: 'Healthy',
        elapsedMilliseconds: expect.any(Number),
        results: { version: { status: 'Healthy', elapsedMilliseconds: expect.any(Number), data: { version, node: process.version } } },
      });
    }
  });
});
