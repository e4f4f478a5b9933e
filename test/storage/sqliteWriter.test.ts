/**
 * The SQL layer's SQLite writes are committed on a thread of their own. What a caller must be able
 * to count on: each write answers its own outcome, what was answered is on disk for every other
 * connection, the event loop keeps serving while the thread waits for a lock or the disk, and
 * closing loses nothing that was queued.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteConnection, SQLITE_CONNECTION_SETUP } from '../../src/server/store/sqlite';
import { startSqliteWriter } from '../../src/server/store/sql/sqliteWriter';

const STATEMENTS = {
  insert: 'INSERT INTO "Item" ("id", "value") VALUES (@id, @value)',
  take: 'DELETE FROM "Item" WHERE "id" = @id RETURNING "value"',
  bump: 'UPDATE "Item" SET "value" = "value" + 1 WHERE "id" = @id AND "value" < @limit',
  bumpAll: 'UPDATE "Item" SET "value" = "value" + 1 WHERE "value" < @limit RETURNING "id", "value"',
};

describe('the SQLite writer thread', () => {
  let dir: string;
  let filename: string;
  let writer: ReturnType<typeof startSqliteWriter>;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'pwl-writer-'));
    filename = join(dir, 'test.db');
    const db = openSqliteConnection(filename);
    db.exec('PRAGMA journal_mode = WAL; CREATE TABLE "Item" ("id" TEXT PRIMARY KEY, "value" INTEGER NOT NULL)');
    db.close();
    writer = startSqliteWriter(filename, SQLITE_CONNECTION_SETUP, 5_000, STATEMENTS);
  });
  afterEach(async () => {
    await writer.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const rows = () => {
    const db = openSqliteConnection(filename, { readonly: true });
    try {
      return db.prepare('SELECT "id", "value" FROM "Item" ORDER BY "id"').all();
    } finally {
      db.close();
    }
  };

  it('answers each of many writes made at once with its own outcome; a refused one fails alone', async () => {
    await writer.write('insert', { id: 'a', value: 1 });
    const outcomes = await Promise.allSettled([
      writer.write('insert', { id: 'b', value: 2 }),
      writer.write('insert', { id: 'a', value: 9 }), // the primary key is taken
      writer.write('take', { id: 'a' }),
      writer.write('take', { id: 'missing' }),
    ]);
    expect(outcomes[0]).toEqual({ status: 'fulfilled', value: { changes: 1 } });
    expect(outcomes[1].status === 'rejected' && (outcomes[1].reason as { code?: string }).code).toBe('SQLITE_CONSTRAINT_PRIMARYKEY');
    expect(outcomes[2]).toEqual({ status: 'fulfilled', value: { value: 1 } });
    expect(outcomes[3]).toEqual({ status: 'fulfilled', value: undefined });
    expect(rows()).toEqual([{ id: 'b', value: 2 }]);
  });

  it('keeps the event loop serving while it waits for a lock another connection of the process holds', async () => {
    const holder = openSqliteConnection(filename);
    holder.exec('BEGIN IMMEDIATE; INSERT INTO "Item" ("id", "value") VALUES (\'held\', 0)');
    let committed = false;
    const write = writer.write('insert', { id: 'queued', value: 1 }).then((result) => {
      committed = true;
      return result;
    });
    // Were the wait on the event loop's thread, this timer could not fire until the write gave up.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(committed).toBe(false);
    holder.exec('COMMIT');
    holder.close();
    expect(await write).toEqual({ changes: 1 });
    expect(rows()).toEqual([
      { id: 'held', value: 0 },
      { id: 'queued', value: 1 },
    ]);
  });

  it('commits a unit whole, or undoes it alone: a failed requirement or a refused statement leaves the rest of the batch', async () => {
    await writer.write('insert', { id: 'counter', value: 0 });
    const unit = (id: string, limit: number) =>
      writer.unit([
        { statement: 'insert', params: { id, value: 0 } },
        { statement: 'bump', params: { id: 'counter', limit }, orFail: 'full' },
      ]);
    // All in one batch: the second unit finds the counter at its limit; the third repeats a key.
    const outcomes = await Promise.allSettled([unit('a', 1), unit('b', 1), unit('a', 5), writer.write('insert', { id: 'plain', value: 9 })]);
    expect(outcomes.slice(0, 2)).toEqual([
      { status: 'fulfilled', value: { ok: true, kept: {} } },
      { status: 'fulfilled', value: { ok: false, failure: 'full' } },
    ]);
    expect(outcomes[2].status === 'rejected' && (outcomes[2].reason as { code?: string }).code).toBe('SQLITE_CONSTRAINT_PRIMARYKEY');
    expect(outcomes[3]).toEqual({ status: 'fulfilled', value: { changes: 1 } });
    expect(rows()).toEqual([
      { id: 'a', value: 0 },
      { id: 'counter', value: 1 },
      { id: 'plain', value: 9 },
    ]);
  });

  it('answers every row a write returns when asked for all, and runs a statement it was not started with by its name', async () => {
    await Promise.all([writer.write('insert', { id: 'a', value: 1 }), writer.write('insert', { id: 'b', value: 5 }), writer.write('insert', { id: 'c', value: 2 })]);
    const bumped = await writer.writeAll('bumpAll', { limit: 3 });
    expect(bumped.sort((x, y) => String(x.id).localeCompare(String(y.id)))).toEqual([
      { id: 'a', value: 2 },
      { id: 'c', value: 3 },
    ]);
    // A composed statement: its text comes with the call, and a second call of the name reuses it.
    const twoIds = 'UPDATE "Item" SET "value" = 0 WHERE "id" IN (@first, @second) RETURNING "id"';
    expect(await writer.writeComposed('resetTwo', twoIds, { first: 'a', second: 'b' })).toHaveLength(2);
    expect(await writer.writeComposed('resetTwo', twoIds, { first: 'c', second: 'missing' })).toEqual([{ id: 'c' }]);
    expect(rows()).toEqual([
      { id: 'a', value: 0 },
      { id: 'b', value: 0 },
      { id: 'c', value: 0 },
    ]);
  });

  it('runs a unit step only when the row an earlier step kept holds its condition', async () => {
    await writer.write('insert', { id: 'x', value: 3 });
    const takeThenInsert = (id: string, equals: number) =>
      writer.unit([
        { statement: 'take', params: { id }, as: 'taken' },
        { statement: 'insert', params: { id: `${id}-was-${equals}`, value: equals }, onlyIf: { step: 'taken', column: 'value', equals } },
      ]);
    // The unit answers the rows its steps kept: the caller reads what it found.
    expect(await takeThenInsert('x', 4)).toEqual({ ok: true, kept: { taken: { value: 3 } } });
    expect(rows()).toEqual([]);
    await writer.write('insert', { id: 'x', value: 3 });
    expect(await takeThenInsert('x', 3)).toEqual({ ok: true, kept: { taken: { value: 3 } } });
    expect(await takeThenInsert('missing', 3)).toEqual({ ok: true, kept: { taken: undefined } });
    expect(rows()).toEqual([{ id: 'x-was-3', value: 3 }]);
  });

  it('commits everything queued before it closes, then refuses new writes', async () => {
    const queued = Array.from({ length: 50 }, (_, i) => writer.write('insert', { id: `k${String(i).padStart(2, '0')}`, value: i }));
    await writer.close();
    expect(await Promise.all(queued)).toEqual(queued.map(() => ({ changes: 1 })));
    expect(rows()).toHaveLength(50);
    await expect(writer.write('insert', { id: 'late', value: 0 })).rejects.toThrow('closed');
  });
});
