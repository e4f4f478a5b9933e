/**
 * A closed service leaves nothing behind that would keep a process alive: no listener, no
 * connection, no database pool, no timer that is not unref'd. Counted with Node's own list of the
 * resources that keep the event loop running.
 */
import { request } from 'node:http';
import { loadConfig } from '../../src/server/core/config';
import { createLogger } from '../../src/server/core/logger';
import { startService } from '../../src/server/server';
import { eventually } from '../support/eventually';
import { freeLoopbackPort } from '../support/net';
import { MANAGEMENT_KEY, createTestDatabase, providers, uniqueAppId, warnIfPostgresSkipped } from '../support/testService';

warnIfPostgresSkipped();

/** How many of each kind of resource keeps the event loop alive right now. */
function liveResources(): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const kind of process.getActiveResourcesInfo()) counts[kind] = (counts[kind] ?? 0) + 1;
  return counts;
}

/** Whether `now` holds no more of any kind than `baseline`. */
const noMoreThan = (baseline: Record<string, number>, now: Record<string, number>) => Object.entries(now).every(([kind, n]) => n <= (baseline[kind] ?? 0));

/** One request on its own connection, closed after the answer. */
function post(url: string, path: string, headers: Record<string, string>, body: unknown): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}${path}`, { method: 'POST', agent: false, headers: { ...headers, 'Content-Type': 'application/json', Connection: 'close' } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

describe.each(providers())('a closed service on %s', (provider) => {
  it('leaves no listener, connection, pool or timer that keeps the process alive', async () => {
    const database = await createTestDatabase(provider);
    try {
      const baseline = liveResources();
      const config = loadConfig({ DATABASE_URL: database.url, PORT: String(await freeLoopbackPort()), HOST: '127.0.0.1', MANAGEMENT_KEY, LOG_LEVEL: 'silent', MAIL_FILE: `${database.url.replace(/^file:/, '')}.mail.md` });
      const service = await startService(config, createLogger('silent'));
      const appId = uniqueAppId('close');
      const created = await post(service.url, `/admin/apps/${appId}/create`, { ManagementKey: MANAGEMENT_KEY }, { adminEmail: 'admin@example.com' });
      expect(created.status).toBe(200);
      const token = await post(service.url, '/register/token', { ApiSecret: JSON.parse(created.body).apiSecret1 }, { userId: 'u1', username: 'u1@example.com' });
      expect(token.status).toBe(200);
      // The count sees the running service (at least its listener).
      expect(noMoreThan(baseline, liveResources())).toBe(false);

      expect(await service.close(5000)).toEqual({ forced: false, clean: true });
      // Sockets finish closing on the next turns of the loop; wait for that, not for a fixed time.
      await eventually('the resources of the service to be gone', () => (noMoreThan(baseline, liveResources()) ? true : undefined), 5000);
    } finally {
      await database.drop();
    }
  }, 60_000);
});
