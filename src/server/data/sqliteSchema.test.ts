import Database from 'better-sqlite3';
import { applyPendingSqlite, loadMigrations } from '../store/migrate';
import { schemaDifferences } from './schemaDifferences';
import { migratedSqliteSchema, sqliteSchemaObjects } from './sqliteSchema';

describe('the SQLite schema the migrations make', () => {
  const migrations = loadMigrations('sqlite');

  it('is the same whether the migrations ran one at a time over the versions or all at once', () => {
    const db = new Database(':memory:');
    db.pragma('foreign_keys = OFF');
    for (let i = 1; i <= migrations.length; i++) db.transaction(() => applyPendingSqlite(db, migrations.slice(0, i)))();
    expect(schemaDifferences(sqliteSchemaObjects(db), migratedSqliteSchema(migrations))).toEqual([]);
    db.close();
  });

  it('holds every table, index and nothing else; a trigger, a view and a dropped index are found', () => {
    const reference = migratedSqliteSchema(migrations);
    expect(new Set(reference.map((o) => o.kind))).toEqual(new Set(['table', 'index']));
    const db = new Database(':memory:');
    db.pragma('foreign_keys = OFF');
    db.transaction(() => applyPendingSqlite(db, migrations))();
    db.exec(`CREATE TRIGGER "replay" AFTER INSERT ON "RedeemedToken" BEGIN DELETE FROM "RedeemedToken" WHERE rowid = NEW.rowid; END;
             CREATE VIEW "keys" AS SELECT * FROM "ApiKey";
             DROP INDEX "RedeemedToken_expiresAt_idx";`);
    expect(schemaDifferences(sqliteSchemaObjects(db), reference)).toEqual([
      'an extra trigger "replay" on "RedeemedToken"',
      'an extra view "keys"',
      'no index "RedeemedToken_expiresAt_idx" on "RedeemedToken"',
    ]);
    expect(sqliteSchemaObjects(db, ['RedeemedToken']).some((o) => o.table === 'RedeemedToken')).toBe(false);
    db.close();
  });
});
