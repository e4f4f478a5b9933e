import { join } from 'node:path';
import supertest from 'supertest';
import { createApp } from '../../src/server/app';
import { loadConfig } from '../../src/server/core/config';
import { createLogger } from '../../src/server/core/logger';
import { createServices, type ServiceOptions, type Services } from '../../src/server/services';
import { openStore } from '../../src/server/store';
import { MANAGEMENT_KEY, type TestDatabase } from './testService';

/** What a local webhook receiver needs: plain http to loopback, and loopback allowed as a destination. */
export const LOOPBACK_ALLOWED = { WEBHOOK_ALLOW_INSECURE: 'true', WEBHOOK_ALLOW_PRIVATE_NETWORKS: '127.0.0.1/32' };

export interface InProcessService {
  services: Services;
  http: ReturnType<typeof supertest>;
  close(): Promise<void>;
}

/** The service in-process on `database` (which outlives it), migrated, with `env` on top of the test defaults. */
export async function inProcessService(database: TestDatabase, env: Record<string, string>, options: ServiceOptions): Promise<InProcessService> {
  const config = loadConfig({ DATABASE_URL: database.url, MANAGEMENT_KEY, LOG_LEVEL: 'silent', MAIL_FILE: join(__dirname, '..', '..', '.test-tmp', 'mail.md'), ...env });
  const store = openStore(config.databaseUrl);
  await store.migrate();
  const services = createServices(config, store, options);
  return { services, http: supertest(createApp(services, createLogger('silent'))), close: () => services.close() };
}
