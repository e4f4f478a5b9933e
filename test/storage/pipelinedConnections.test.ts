/**
 * The PostgreSQL hot path's single statements share a few pipelined connections: many statements
 * in flight on one connection at once, each its own transaction with its own answer or error.
 */
import { Client } from 'pg';
import { openPipelinedConnections, type PipelinedConnections } from '../../src/server/store/sql/pipelinedConnections';
import { eventually } from '../support/eventually';
import { createTestDatabase, warnIfPostgresSkipped, type TestDatabase } from '../support/testService';

warnIfPostgresSkipped();

const describePostgres = process.env.TEST_DATABASE_URL ? describe : describe.skip;

describePostgres('pipelined PostgreSQL connections', () => {
  let database: TestDatabase;
  let admin: Client;
  const opened: PipelinedConnections[] = [];
  const open = (max = 2, idleTimeoutMs = 60_000) => {
    const connections = openPipelinedConnections({ connectionString: database.url, max, idleTimeoutMs });
    opened.push(connections);
    return connections;
  };

  beforeAll(async () => {
    database = await createTestDatabase('postgresql');
    admin = new Client({ connectionString: database.url });
    await admin.connect();
    await admin.query('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)');
  });
  afterAll(async () => {
    await admin.end();
    await database.drop();
  });
  beforeEach(() => admin.query('DELETE FROM t'));
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((c) => c.close()));
    await eventually('the connections of the test gone', async () => ((await backends()).length === 0 ? true : undefined));
  });

  /** Backends of this database other than the test's own. */
  const backends = async () =>
    (await admin.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()')).rows.map((r) => r.pid);

  it('opens no connection until a statement needs one, and never more than its maximum', async () => {
    const connections = open(2);
    expect(connections.open()).toBe(0);
    const answers = await Promise.all(Array.from({ length: 200 }, (_, i) => connections.query({ name: 'double', text: 'SELECT $1::int * 2 AS v', values: [i] })));
    expect(answers.map((a) => a.rows[0].v)).toEqual(Array.from({ length: 200 }, (_, i) => i * 2));
    expect(connections.open()).toBeLessThanOrEqual(2);
    expect((await backends()).length).toBeLessThanOrEqual(2);
  });

  it('answers each of many statements in flight with its own result; one that fails fails alone and undoes only itself', async () => {
    const connections = open(1);
    const insert = (id: number) => connections.query({ name: 'insert', text: 'INSERT INTO t (id, v) VALUES ($1, $2) RETURNING id', values: [id, `v${id}`] });
    const outcomes = await Promise.allSettled([insert(1), insert(2), insert(1), insert(3), connections.query({ text: 'SELECT 1/0' }), insert(4)]);
    expect(outcomes.map((o) => (o.status === 'fulfilled' ? o.value.rows[0].id : (o.reason as { code: string }).code))).toEqual([1, 2, '23505', 3, '22012', 4]);
    expect((await admin.query('SELECT id FROM t ORDER BY id')).rows.map((r) => r.id)).toEqual([1, 2, 3, 4]);
  });

  it('replaces a connection the server ended: the statements after it run on a new one', async () => {
    const connections = open(1);
    await connections.query({ text: 'SELECT 1' });
    const [pid] = await backends();
    await admin.query('SELECT pg_terminate_backend($1)', [pid]);
    // The next statement on the dead connection may fail with it; the one after goes to a new connection.
    await eventually('a statement on a new connection', async () => {
      try {
        return (await connections.query({ text: 'SELECT 7 AS v' })).rows[0].v === 7 ? true : undefined;
      } catch {
        return undefined;
      }
    });
    await eventually('the ended backend gone', async () => (!(await backends()).includes(pid) ? true : undefined));
    expect(connections.open()).toBe(1);
  });

  it('closes a connection left idle, and opens one again when needed', async () => {
    const connections = open(1, 50);
    await connections.query({ text: 'SELECT 1' });
    expect(connections.open()).toBe(1);
    await eventually('the idle connection closed', async () => (connections.open() === 0 && (await backends()).length === 0 ? true : undefined));
    expect((await connections.query({ text: 'SELECT 2 AS v' })).rows[0].v).toBe(2);
  });

  it('answers what is in flight before it closes, and refuses statements after', async () => {
    const connections = open(2);
    const inFlight = Array.from({ length: 20 }, (_, i) => connections.query({ name: 'insert', text: 'INSERT INTO t (id, v) VALUES ($1, $2) RETURNING id', values: [100 + i, 'x'] }));
    await connections.close();
    expect((await Promise.all(inFlight)).map((a) => a.rows[0].id)).toEqual(Array.from({ length: 20 }, (_, i) => 100 + i));
    await expect(connections.query({ text: 'SELECT 1' })).rejects.toThrow(/closed/);
  });
});
