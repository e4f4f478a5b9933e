/**
 * The console's authenticators page and health page as the server renders them (issue 36), read
 * with supertest from a service process (`node dist/cli.js serve`) by an operator signed in without
 * a browser (CLI invite, software authenticator, the console's invite completion):
 * - authenticators: the FIDO metadata filtered by certification status and paged by key, the allow
 *   and block lists changed through the service (and seen by the private API), the plan's refusal;
 * - health: storage, mail, Redis (off, and answering when TEST_REDIS_URL is set), the webhook
 *   backlog, the metadata and the version. (Redis configured but down is not shown here: the
 *   console's sessions are then in Redis, so no operator can open a page while it is down.)
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { consoleSession, type ConsoleSession } from '../support/consoleSession';
import { KEYS, metadataEnv, testBlob, testEntries, writeBlob } from '../support/metadata';
import { dropRedisKeys, testRedisUrl, uniqueRedisPrefix } from '../support/redis';
import { ensureBuilt, startServiceProcess, type ServiceProcess } from '../support/serviceProcess';
import { createTestPki, type TestEntry, type TestPki } from '../support/testPki';
import { MANAGEMENT_KEY, uniqueAppId, type TestApp, type TestDatabase } from '../support/testService';

jest.setTimeout(120_000);

const VERSION = (JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as { version: string }).version;
/** Nothing is sent (WEBHOOK_WORKER off), so what a test event queues stays in the backlog. */
const WEBHOOK_ENV = { WEBHOOK_ALLOW_INSECURE: 'true', WEBHOOK_ALLOW_PRIVATE_NETWORKS: '127.0.0.1', WEBHOOK_WORKER: 'false' };

/** 120 more authenticators, half FIDO_CERTIFIED_L1 and half L2, so that a filtered list takes more than one page of 50. */
const generated: TestEntry[] = Array.from({ length: 120 }, (_, i) => ({
  aaguid: `00000000-0000-4000-8000-${i.toString(16).padStart(12, '0')}`,
  description: `Generated Key ${String(i).padStart(3, '0')}`,
  statusReports: [{ status: i % 2 === 1 ? 'FIDO_CERTIFIED_L2' : 'FIDO_CERTIFIED_L1', effectiveDate: '2026-01-01' }],
}));

/** The rows (`data-aaguid`) of the table or list marked with `marker` (`data-entries`, `data-list="allowed"`). */
function aaguidsIn(page: string, marker: string): string[] {
  const start = page.indexOf(marker);
  if (start === -1) return [];
  // Up to the end of its card: an empty list is a paragraph, and the next table is another card's.
  const end = page.indexOf('</section>', start);
  const table = page.slice(start, end === -1 ? undefined : end);
  return [...table.matchAll(/<tr data-aaguid="([^"]+)"/g)].map((m) => m[1]);
}

/** The next-page link's query, if there is one. */
const nextLink = (page: string) => /<a href="([^"]+)" rel="next">/.exec(page)?.[1]?.replaceAll('&amp;', '&');

/** Each health row's status, by its `data-check`. */
const healthOf = (page: string) => Object.fromEntries([...page.matchAll(/data-check="(\w+)" data-status="(\w+)"/g)].map((m) => [m[1], m[2]]));

async function createApp(service: ServiceProcess, plan: 'trial' | 'enterprise'): Promise<TestApp> {
  const appId = uniqueAppId();
  const res = await service.http.post(`/admin/apps/${appId}/create`).set('ManagementKey', MANAGEMENT_KEY).send({ adminEmail: 'admin@example.com', plan });
  expect(res.status).toBe(200);
  return { appId, apiKey: res.body.apiKey1, apiKey2: res.body.apiKey2, apiSecret: res.body.apiSecret1, apiSecret2: res.body.apiSecret2 };
}

/** A console service process and an operator's session on it. */
async function consoleService(env: Record<string, string>): Promise<{ service: ServiceProcess & { database: TestDatabase }; origin: string; session: ConsoleSession }> {
  const service = await startServiceProcess({ PUBLIC_URL: 'http://localhost:{port}', CONSOLE: 'on', ...env });
  const origin = `http://localhost:${new URL(service.url).port}`;
  try {
    return { service, origin, session: await consoleSession(service, origin, 'ops@example.com', env) };
  } catch (error) {
    await service.stop();
    throw error;
  }
}

beforeAll(() => ensureBuilt(), 180_000);

describe('the console’s authenticators and health pages, server-rendered', () => {
  let pki: TestPki;
  let service: ServiceProcess & { database: TestDatabase };
  let session: ConsoleSession;
  let enterprise: TestApp;
  let trial: TestApp;

  beforeAll(async () => {
    pki = createTestPki();
    const blobFile = writeBlob(pki, 'console.jwt', testBlob(pki, { entries: [...testEntries(), ...generated] }));
    ({ service, session } = await consoleService({ ...metadataEnv(pki, blobFile), ...WEBHOOK_ENV }));
    enterprise = await createApp(service, 'enterprise');
    trial = await createApp(service, 'trial');
  });

  afterAll(async () => {
    await service?.stop();
    pki?.remove();
  });

  describe('authenticators', () => {
    const pageOf = (app: TestApp, query = '') => `/console/apps/${app.appId}/authenticators${query}`;

    it('filters the metadata by certification status, and pages the filtered list by key with the filter kept', async () => {
      const revoked = await session.get(pageOf(enterprise, '?status=REVOKED'));
      expect(revoked.status).toBe(200);
      expect(aaguidsIn(revoked.text, 'data-entries')).toEqual([KEYS.revoked]);
      expect(revoked.text).toContain('<option value="REVOKED" selected>');

      const l1 = await session.get(pageOf(enterprise, '?status=FIDO_CERTIFIED_L1'));
      // Sorted by name: Broken Key, Generated Key 000, 002, …, then Test Security Key on a later page.
      expect(aaguidsIn(l1.text, 'data-entries').slice(0, 2)).toEqual([KEYS.compromised, generated[0].aaguid]);

      const seen: string[] = [];
      let path: string | undefined = pageOf(enterprise, '?status=FIDO_CERTIFIED_L2');
      for (let pages = 0; path && pages < 5; pages++) {
        const page = await session.get(path);
        expect(page.status).toBe(200);
        const rows = aaguidsIn(page.text, 'data-entries');
        expect(rows.length).toBeLessThanOrEqual(50);
        seen.push(...rows);
        path = nextLink(page.text);
        if (path) expect(new URL(path, 'http://x').searchParams.get('status')).toBe('FIDO_CERTIFIED_L2');
      }
      const l2 = [KEYS.other, ...generated.filter((_, i) => i % 2 === 1).map((e) => e.aaguid)];
      expect(seen).toEqual(l2);

      const all = await session.get(pageOf(enterprise));
      expect(aaguidsIn(all.text, 'data-entries')).toHaveLength(50);
      expect(nextLink(all.text)).toMatch(/^\/console\/apps\/\w+\/authenticators\?after=[0-9a-f-]{36}$/);
    });

    it('answers a status that matches nothing with an empty list, and a malformed filter or cursor with a 400', async () => {
      const none = await session.get(pageOf(enterprise, '?status=NOT_A_STATUS'));
      expect(none.status).toBe(200);
      expect(none.text).toContain('data-entries-empty');
      for (const query of ['?status=%3Cscript%3E', '?status=A&status=B', '?after=not-a-guid']) {
        const res = await session.get(pageOf(enterprise, query));
        expect({ query, status: res.status }).toEqual({ query, status: 400 });
        expect(res.text).not.toContain('<script>');
      }
    });

    it('puts an authenticator on the allow list and the block list and takes it off, as the private API then sees it', async () => {
      const page = pageOf(enterprise);
      const apiList = async (isAllowed: boolean) =>
        ((await service.http.get(`/authenticators/list?isAllowed=${isAllowed}`).set('ApiSecret', enterprise.apiSecret)).body as { aaGuid: string }[]).map((e) => e.aaGuid);

      const allowed = await session.post(`${page}/add`, { aaGuid: KEYS.trusted, isAllowed: 'true' }, page);
      expect(allowed.status).toBe(303);
      expect(allowed.headers.location).toBe(page);
      const after = await session.get(page);
      expect(after.text).toContain('Put on the allow list.');
      expect(aaguidsIn(after.text, 'data-list="allowed"')).toEqual([KEYS.trusted]);
      expect(await apiList(true)).toEqual([KEYS.trusted]);

      // Blocking it moves it, as the API does.
      await session.post(`${page}/add`, { aaGuid: KEYS.trusted, isAllowed: 'false' }, page);
      expect(aaguidsIn((await session.get(page)).text, 'data-list="blocked"')).toEqual([KEYS.trusted]);
      expect(await apiList(true)).toEqual([]);
      expect(await apiList(false)).toEqual([KEYS.trusted]);

      await session.post(`${page}/remove`, { aaGuid: KEYS.trusted }, page);
      const removed = (await session.get(page)).text;
      expect(removed).toContain('Taken off its list.');
      expect(aaguidsIn(removed, 'data-list="blocked"')).toEqual([]);
      expect(await apiList(false)).toEqual([]);

      // An AAGUID the metadata does not know: the service's refusal, shown on the page.
      await session.post(`${page}/add`, { aaGuid: KEYS.unknown, isAllowed: 'true' }, page);
      expect((await session.get(page)).text).toContain(`Not in the FIDO metadata: ${KEYS.unknown}.`);
    });

    it('shows the plan’s refusal in place of the lists, and the service’s error when an add is tried anyway', async () => {
      const page = pageOf(trial);
      const shown = await session.get(page);
      expect(shown.status).toBe(200);
      expect(shown.text).toMatch(/data-plan-refusal>[^<]*enterprise plan/);
      expect(aaguidsIn(shown.text, 'data-entries')).toHaveLength(50);

      const refused = await session.post(`${page}/add`, { aaGuid: KEYS.trusted, isAllowed: 'true' }, page);
      expect(refused.status).toBe(303);
      const after = (await session.get(page)).text;
      expect(after).toMatch(/class="notice error" role="status">Attestation type not supported on your plan [^<]*enterprise plan/);
    });
  });

  describe('health', () => {
    it('shows storage, mail, metadata and the version healthy, Redis off, and an empty backlog', async () => {
      const res = await session.get('/console/health');
      expect(res.status).toBe(200);
      expect(healthOf(res.text)).toEqual({ storage: 'Healthy', mail: 'Healthy', redis: 'Off', webhooks: 'Healthy', metadata: 'Healthy', version: 'Healthy' });
      expect(res.text).toContain('Storage (sqlite)');
      expect(res.text).toContain('Mail (file)');
      expect(res.text).toMatch(/migrations applied, none pending/);
      expect(res.text).toContain(`passwordless-selfhost ${VERSION} on Node.js ${process.version}`);
      expect(res.text).toContain(`${testEntries().length + generated.length} FIDO2 authenticators`);
      expect(res.text).toContain('<span data-backlog-pending>0</span> pending, <span data-backlog-due>0</span> due now');
      expect(res.text).toContain('does not send webhooks (WEBHOOK_WORKER=false)');
    });

    it('counts the webhook backlog: what is queued and not sent is pending and due', async () => {
      const app = await createApp(service, 'trial');
      const created = await service.http.post('/webhooks/create').set('ApiSecret', app.apiSecret).send({ url: 'http://127.0.0.1:9/in', eventTypes: ['aliases.updated'] });
      expect(created.status).toBe(201);
      for (let i = 0; i < 3; i++) expect((await service.http.post('/webhooks/test').set('ApiSecret', app.apiSecret).send({ id: created.body.id })).status).toBe(202);
      const page = (await session.get('/console/health')).text;
      expect(page).toContain('<span data-backlog-pending>3</span> pending, <span data-backlog-due>3</span> due now');
    });

    it('sends a signed-out visitor to sign in', async () => {
      const res = await service.http.get('/console/health');
      expect(res.status).toBe(303);
      expect(res.headers.location).toBe('/console/sign-in?next=%2Fconsole%2Fhealth');
    });
  });
});

describe('the console’s health page with REDIS_URL', () => {
  const redisUrl = testRedisUrl();
  (redisUrl ? it : it.skip)('shows Redis configured and answering (TEST_REDIS_URL)', async () => {
    const prefix = uniqueRedisPrefix();
    const { service, session } = await consoleService({ REDIS_URL: redisUrl!, REDIS_KEY_PREFIX: prefix });
    try {
      const res = await session.get('/console/health');
      expect(healthOf(res.text)).toMatchObject({ redis: 'Healthy' });
      expect(res.text).toContain('configured and answering');
      expect(res.text).not.toContain(redisUrl!);
    } finally {
      await service.stop();
      await dropRedisKeys(redisUrl!, prefix);
    }
  });
});
