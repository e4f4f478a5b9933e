/**
 * The management key on service processes: wrong ManagementKeys are counted per client address and
 * refused with 429 once over the limit (the right key too, from that address, until the window
 * ends); MANAGEMENT_KEY must carry 128 bits (32 characters) and `generate-key management` prints
 * one; MANAGEMENT_PORT serves the management API on a listener of its own and nowhere else.
 */
import { spawn } from 'node:child_process';
import supertest from 'supertest';
import { outputOf } from '../support/childProcess';
import { expectProblem } from '../support/http';
import { CLI, childEnv, ensureBuilt, startServiceProcess } from '../support/serviceProcess';
import { MANAGEMENT_KEY, createTestDatabase } from '../support/testService';

const PROCESS_TIMEOUT_MS = 120_000;
const GUESSER = '203.0.113.66';
const OPERATOR = '198.51.100.7';

beforeAll(() => ensureBuilt(), PROCESS_TIMEOUT_MS);

describe('guessing the ManagementKey', () => {
  let svc: Awaited<ReturnType<typeof startServiceProcess>>;
  beforeAll(async () => {
    // Addresses from X-Forwarded-For, as behind a proxy; the default limit (10 wrong keys a minute per address).
    svc = await startServiceProcess({ TRUST_PROXY: 'loopback' });
  }, PROCESS_TIMEOUT_MS);
  afterAll(() => svc?.stop(), PROCESS_TIMEOUT_MS);

  const list = (key: string, from: string) => svc.http.get('/admin/apps').set('ManagementKey', key).set('X-Forwarded-For', from);

  it('meets 429 after 10 wrong keys from one address, then even the right key is refused from there; another address is served', async () => {
    const statuses: number[] = [];
    for (let guess = 0; guess < 80; guess++) statuses.push((await list(`${MANAGEMENT_KEY.slice(0, -3)}${String(guess).padStart(3, '0')}`, GUESSER)).status);
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(401));
    expect(new Set(statuses.slice(10))).toEqual(new Set([429]));
    const refused = await list(MANAGEMENT_KEY, GUESSER);
    expectProblem(refused, 429, 'rate_limited');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.body.detail).toContain('ManagementKey');
    expect((await list(MANAGEMENT_KEY, OPERATOR)).status).toBe(200);
  });
});

describe('MANAGEMENT_KEY and generate-key', () => {
  it(
    'refuses to start with a key under 32 characters, and accepts what generate-key management prints',
    async () => {
      const database = await createTestDatabase('sqlite');
      try {
        const short = await outputOf(spawn(process.execPath, [CLI, 'serve'], { env: childEnv({ DATABASE_URL: database.url, PORT: '1', MANAGEMENT_KEY: 'sixteen-chars-ok-but-not-32' }) }));
        expect(short.code).toBe(1);
        expect(short.stderr).toContain('MANAGEMENT_KEY must be at least 32 characters');
        expect(short.stderr).toContain('generate-key management');
        expect(short.stderr).not.toContain('sixteen-chars');

        const generated = await outputOf(spawn(process.execPath, [CLI, 'generate-key', 'management'], { env: childEnv({}) }));
        const key = generated.stdout.trim();
        expect(generated.code).toBe(0);
        expect(key).toMatch(/^[A-Za-z0-9_-]{43}$/);
        const another = (await outputOf(spawn(process.execPath, [CLI, 'generate-key', 'management'], { env: childEnv({}) }))).stdout.trim();
        expect(another).not.toBe(key);

        const svc = await startServiceProcess({ MANAGEMENT_KEY: key }, database);
        try {
          expect((await svc.http.get('/admin/apps').set('ManagementKey', key)).status).toBe(200);
        } finally {
          await svc.stop();
        }
      } finally {
        await database.drop();
      }
    },
    PROCESS_TIMEOUT_MS,
  );
});

describe('MANAGEMENT_PORT', () => {
  let svc: Awaited<ReturnType<typeof startServiceProcess>>;
  let management: ReturnType<typeof supertest>;
  beforeAll(async () => {
    svc = await startServiceProcess({ MANAGEMENT_PORT: '0', LOG_LEVEL: 'info' });
    const listening = svc
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { msg?: string; managementUrl?: string })
      .find((entry) => entry.msg === 'passwordless service listening');
    expect(listening?.managementUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    management = supertest(listening!.managementUrl!);
  }, PROCESS_TIMEOUT_MS);
  afterAll(() => svc?.stop(), PROCESS_TIMEOUT_MS);

  it('serves the management API on its own loopback listener only, and the rest of the API on the main one only', async () => {
    const created = await management.post('/admin/apps/portapp/create').set('ManagementKey', MANAGEMENT_KEY).send({ adminEmail: 'admin@example.com' });
    expect(created.status).toBe(200);
    expect((await management.get('/api/admin/apps').set('ManagementKey', MANAGEMENT_KEY)).status).toBe(200);
    // The main listener does not know the management API at all, whatever key is sent.
    for (const path of ['/admin/apps', '/api/admin/apps', '/v3/admin/apps']) expectProblem(await svc.http.get(path).set('ManagementKey', MANAGEMENT_KEY), 404, 'not_found');
    // The management listener serves nothing else.
    expectProblem(await management.post('/register/token').set('ApiSecret', created.body.apiSecret1).send({ userId: 'u1', username: 'u1' }), 404, 'not_found');
    expect((await svc.http.post('/register/token').set('ApiSecret', created.body.apiSecret1).send({ userId: 'u1', username: 'u1' })).status).toBe(200);
  });
});
