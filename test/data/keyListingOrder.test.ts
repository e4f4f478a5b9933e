/**
 * The listing of an app's keys (`GET /admin/apps/{id}/api-keys`) comes in one order, whatever the
 * database: by creation, then kind (public before secret), then id. The four keys an app is made
 * with share one createdAt, and SQLite and PostgreSQL broke that tie differently, so the listing
 * changed after a `data copy`. Real service processes, SQLite, and PostgreSQL (a copy of the same
 * apps) when TEST_DATABASE_URL is set.
 */
import { runCli } from '../support/deployment';
import { ensureBuilt, startServiceProcess, type ServiceProcess } from '../support/serviceProcess';
import { createTestDatabase, MANAGEMENT_KEY, providers, warnIfPostgresSkipped, type TestApp, type TestDatabase } from '../support/testService';

warnIfPostgresSkipped();
const TIMEOUT_MS = 120_000;
/** Enough apps that the old tie-breaks (by id on SQLite, by row order on PostgreSQL) could not all happen to match. */
const APPS = 8;

beforeAll(() => ensureBuilt(), 180_000);

interface ListedKey {
  id: string;
  createdAt: string;
  kind: 'public' | 'secret';
}

const listing = async (svc: ServiceProcess, appId: string): Promise<ListedKey[]> => {
  const res = await svc.http.get(`/admin/apps/${appId}/api-keys`).set('ManagementKey', MANAGEMENT_KEY);
  expect(res.status).toBe(200);
  return (res.body as ListedKey[]).map(({ id, createdAt, kind }) => ({ id, createdAt, kind }));
};

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
/** The promised order, computed here with plain code-unit comparison (createdAt is ISO-8601 UTC). */
const promisedOrder = (keys: ListedKey[]) => [...keys].sort((a, b) => compare(a.createdAt, b.createdAt) || compare(a.kind, b.kind) || compare(a.id, b.id));

/** Checks an app's listing: its four keys, publics first, in the promised order. */
const expectPromisedOrder = (keys: ListedKey[]) => {
  expect(keys.map((k) => k.kind)).toEqual(['public', 'public', 'secret', 'secret']);
  // The four keys of a new app share their createdAt: the tie-break is what is tested.
  expect(new Set(keys.map((k) => k.createdAt)).size).toBe(1);
  expect(keys).toEqual(promisedOrder(keys));
};

it(
  `lists every app's keys by creation, kind and id, on SQLite${providers().includes('postgresql') ? ' and, after a data copy, the same on PostgreSQL' : ''}`,
  async () => {
    const sqlite = await createTestDatabase('sqlite');
    const databases: TestDatabase[] = [sqlite];
    const source = await startServiceProcess({}, sqlite);
    let copy: ServiceProcess | undefined;
    try {
      const apps: TestApp[] = [];
      for (let i = 0; i < APPS; i++) apps.push(await source.createApp());
      const onSqlite = new Map<string, ListedKey[]>();
      for (const app of apps) {
        const keys = await listing(source, app.appId);
        expectPromisedOrder(keys);
        onSqlite.set(app.appId, keys);
      }
      if (!providers().includes('postgresql')) return;

      await source.stop();
      const target = await createTestDatabase('postgresql');
      databases.push(target);
      const copied = await runCli(['data', 'copy', '--from', sqlite.url, '--to', target.url]);
      expect({ code: copied.code, stderr: copied.stderr }).toEqual({ code: 0, stderr: '' });
      copy = await startServiceProcess({}, target);
      for (const app of apps) expect({ app: app.appId, keys: await listing(copy, app.appId) }).toEqual({ app: app.appId, keys: onSqlite.get(app.appId) });
      // And apps made on PostgreSQL itself, whose rows lie in the order they were inserted.
      for (let i = 0; i < APPS; i++) expectPromisedOrder(await listing(copy, (await copy.createApp()).appId));
    } finally {
      await copy?.stop();
      await source.stop();
      for (const database of databases) await database.drop();
    }
  },
  TIMEOUT_MS,
);
