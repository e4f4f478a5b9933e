/**
 * An unpaged users/list answers every user in the shape the SDKs read, streamed a page at a time:
 * a service process answering 100 000 users stays within 50 MiB of its idle memory. The peak is
 * the kernel's own high-water mark of the process's resident set (VmHWM, reset through
 * /proc/<pid>/clear_refs once the service is warm), so no sampling can miss it.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { get } from 'node:http';
import { seedUsers } from '../support/seedUsers';
import { startServiceProcess } from '../support/serviceProcess';
import { createTestDatabase, providers, warnIfPostgresSkipped } from '../support/testService';

warnIfPostgresSkipped();

const USERS = 100_000;
const MIB = 1024 * 1024;

/** Resident set and its high-water mark, bytes. */
function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)![1]) * 1024;
  return { rss: kb('VmRSS'), peak: kb('VmHWM') };
}

/** GETs a URL and reads the whole body as it streams in; the body's size and the users it lists. */
function readWhole(url: string, apiSecret: string): Promise<{ status: number; contentType: string | undefined; bytes: number; users: { userId: string }[] }> {
  return new Promise((resolve, reject) => {
    get(url, { headers: { ApiSecret: apiSecret } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        const body = Buffer.concat(chunks);
        resolve({ status: res.statusCode ?? 0, contentType: res.headers['content-type'], bytes: body.length, users: JSON.parse(body.toString('utf8')) });
      });
    }).on('error', reject);
  });
}

describe.each(providers())('an unpaged users/list on %s', (provider) => {
  it(`streams ${USERS} users within 50 MiB of the service's idle memory`, async () => {
    const database = await createTestDatabase(provider);
    const service = await startServiceProcess({ LOG_LEVEL: 'warn' }, database);
    try {
      const app = await service.createApp();
      await seedUsers(database.url, app.appId, { count: USERS, at: Date.UTC(2026, 10, 25) });
      // Warm: connections open, statements prepared, code compiled, a few pages read.
      for (let i = 0; i < 5; i++) expect((await service.http.get('/users/list?limit=1000').set('ApiSecret', app.apiSecret)).status).toBe(200);
      expect((await service.http.get('/users/count').set('ApiSecret', app.apiSecret)).body).toEqual({ count: USERS });

      writeFileSync(`/proc/${service.pid}/clear_refs`, '5'); // the high-water mark starts again from the current resident set
      const idle = memoryOf(service.pid).rss;
      const whole = await readWhole(`${service.url}/users/list`, app.apiSecret);
      const { peak } = memoryOf(service.pid);

      expect([whole.status, whole.contentType, whole.users.length]).toEqual([200, 'application/json; charset=utf-8', USERS]);
      expect(whole.users[USERS - 1]).toMatchObject({ userId: `user-${String(USERS - 1).padStart(7, '0')}`, credentialsCount: 1, aliasCount: 1 });
      const growth = { idleMiB: Math.round(idle / MIB), peakMiB: Math.round(peak / MIB), bodyMiB: Math.round(whole.bytes / MIB) };
      expect({ ...growth, withinFiftyMiB: peak - idle < 50 * MIB }).toEqual({ ...growth, withinFiftyMiB: true });
    } finally {
      await service.stop();
      await database.drop();
    }
  }, 300_000);
});
