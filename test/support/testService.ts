import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import type { Express } from 'express';
import supertest from 'supertest';
import { createApp } from '../../src/server/app';
import { loadConfig, type Config } from '../../src/server/core/config';
import { createLogger } from '../../src/server/core/logger';
import { createServices, type ServiceOptions, type Services } from '../../src/server/services';
import { openStore } from '../../src/server/store';
import type { Provider } from '../../src/server/store/migrate';

export const MANAGEMENT_KEY = 'test-management-key-0123456789abcdef';
const TMP_ROOT = join(__dirname, '..', '..', '.test-tmp');

/**
 * The storage providers a suite runs against: SQLite always, PostgreSQL when TEST_DATABASE_URL is
 * set. Use with `describe.each(providers())`.
 */
export function providers(): Provider[] {
  return process.env.TEST_DATABASE_URL ? ['sqlite', 'postgresql'] : ['sqlite'];
}

let warned = false;
/** Says loudly, once per test file, that the PostgreSQL variants were skipped. */
export function warnIfPostgresSkipped(): void {
  if (!process.env.TEST_DATABASE_URL && !warned) {
    warned = true;
    process.stderr.write('\n*** TEST_DATABASE_URL is not set: PostgreSQL variants of the storage-backed suites are SKIPPED ***\n\n');
  }
}

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

/** A brand-new empty database: an SQLite file, or a PostgreSQL database created for this suite. */
export async function createTestDatabase(provider: Provider): Promise<TestDatabase> {
  const name = `pwl_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  if (provider === 'sqlite') {
    const dir = join(TMP_ROOT, name);
    mkdirSync(dir, { recursive: true });
    return { url: `file:${join(dir, 'test.db')}`, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) throw new Error('TEST_DATABASE_URL is not set');
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const c = new Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await c.end();
    },
  };
}

export interface TestService {
  provider: Provider;
  config: Config;
  services: Services;
  app: Express;
  http: ReturnType<typeof supertest>;
  /** Creates an app through the management API and returns its keys. */
  createApp(options?: { appId?: string; plan?: 'trial' | 'pro' | 'enterprise'; allowedOrigins?: string[] }): Promise<TestApp>;
  close(): Promise<void>;
}

export interface TestApp {
  appId: string;
  apiKey: string;
  apiKey2: string;
  apiSecret: string;
  apiSecret2: string;
}

export function uniqueAppId(prefix = 'app'): string {
  return `${prefix}${randomBytes(6).toString('hex')}`;
}

/** The service in-process (no socket) on a fresh database, migrated, ready for supertest. */
export async function startTestService(provider: Provider, env: Record<string, string> = {}, options: ServiceOptions = {}): Promise<TestService> {
  const database = await createTestDatabase(provider);
  const config = loadConfig({ DATABASE_URL: database.url, MANAGEMENT_KEY, LOG_LEVEL: 'silent', MAIL_FILE: join(TMP_ROOT, 'mail.md'), ...env });
  const store = openStore(config.databaseUrl);
  await store.migrate();
  const services = createServices(config, store, options);
  const app = createApp(services, options.logger ?? createLogger(config.logLevel));
  const http = supertest(app);
  return {
    provider,
    config,
    services,
    app,
    http,
    async createApp(options = {}) {
      const appId = options.appId ?? uniqueAppId();
      const res = await http
        .post(`/admin/apps/${appId}/create`)
        .set('ManagementKey', MANAGEMENT_KEY)
        .send({ adminEmail: 'admin@example.com', plan: options.plan, allowedOrigins: options.allowedOrigins });
      if (res.status !== 200) throw new Error(`creating app ${appId} failed: ${res.status} ${JSON.stringify(res.body)}`);
      return { appId, apiKey: res.body.apiKey1, apiKey2: res.body.apiKey2, apiSecret: res.body.apiSecret1, apiSecret2: res.body.apiSecret2 };
    },
    async close() {
      await services.close();
      await database.drop();
    },
  };
}
