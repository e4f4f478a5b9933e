import Database from 'better-sqlite3';
import { rowBytes, sqliteTableDigests } from './sqliteTableDigests';

describe('rowBytes', () => {
  it('tells apart values that print alike: types, NULL and empty, and where one value ends', () => {
    const rows: unknown[][] = [[1n], ['1'], [1], [Buffer.from('1')], [null], [''], ['ab', 'c'], ['a', 'bc'], [Buffer.alloc(0)]];
    const seen = new Set(rows.map((row) => rowBytes(row).toString('hex')));
    expect(seen.size).toBe(rows.length);
  });
});

describe('sqliteTableDigests', () => {
  const fill = (db: Database.Database) => {
    db.exec(`CREATE TABLE "Credential" ("id" TEXT PRIMARY KEY, "publicKey" BLOB, "counter" INTEGER, "ratio" REAL);
             CREATE TABLE "Note" ("k" TEXT PRIMARY KEY, "v" TEXT) WITHOUT ROWID;
             CREATE TABLE "Skipped" ("x" INTEGER)`);
    const insert = db.prepare('INSERT INTO "Credential" VALUES (?, ?, ?, ?)');
    insert.run('c1', Buffer.from('a5010203', 'hex'), 7, 0.5);
    insert.run('c2', Buffer.from('a5010204', 'hex'), 9007199254740993n, null);
    db.prepare('INSERT INTO "Note" VALUES (?, ?)').run('b', 'x');
    db.prepare('INSERT INTO "Note" VALUES (?, ?)').run('a', 'y');
  };

  it('digests each table by name with its row count, and leaves out the tables it is told to', () => {
    const db = new Database(':memory:');
    fill(db);
    const digests = sqliteTableDigests(db, ['Skipped']);
    expect(digests.map(({ table, rows }) => ({ table, rows }))).toEqual([
      { table: 'Credential', rows: 2 },
      { table: 'Note', rows: 2 },
    ]);
    for (const d of digests) expect(d.sha256).toMatch(/^[0-9a-f]{64}$/);
    db.close();
  });

  it('changes with one byte of one value, and not with anything else', () => {
    const [a, b] = [new Database(':memory:'), new Database(':memory:')];
    fill(a);
    fill(b);
    expect(sqliteTableDigests(b)).toEqual(sqliteTableDigests(a));
    b.prepare(`UPDATE "Credential" SET "publicKey" = X'a5010205' WHERE "id" = 'c1'`).run();
    const [credential, note] = sqliteTableDigests(b);
    expect(credential.sha256).not.toBe(sqliteTableDigests(a)[0].sha256);
    expect(note).toEqual(sqliteTableDigests(a)[1]);
    b.prepare(`UPDATE "Credential" SET "publicKey" = X'a5010203' WHERE "id" = 'c1'`).run();
    expect(sqliteTableDigests(b)).toEqual(sqliteTableDigests(a));
    // The same bytes as text instead of a blob are another value.
    a.prepare(`UPDATE "Credential" SET "publicKey" = X'616263' WHERE "id" = 'c1'`).run();
    b.prepare(`UPDATE "Credential" SET "publicKey" = 'abc' WHERE "id" = 'c1'`).run();
    expect(sqliteTableDigests(b)[0].sha256).not.toBe(sqliteTableDigests(a)[0].sha256);
    a.close();
    b.close();
  });
});
