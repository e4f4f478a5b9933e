import Database from 'better-sqlite3';
import { assertManifestHolds, BACKUP_MANIFEST_TABLE, describeManifestCheck, manifestCheck, readBackupManifest, writeBackupManifest } from './backupManifest';
import { DataError } from './dataError';

const KEY = 'a-backup-mac-key-of-more-than-32-characters';
const LEDGER = ['20261122000000_init'];

function database(): Database.Database {
  const db = new Database(':memory:');
  db.exec(`CREATE TABLE "Credential" ("id" TEXT PRIMARY KEY, "publicKey" TEXT); INSERT INTO "Credential" VALUES ('c1', 'pQECAyYgASFYIA'), ('c2', 'pQECAyYgASFYIB')`);
  return db;
}

describe('the backup manifest', () => {
  it('records every table but its own, and reads back signed under the key', () => {
    const db = database();
    expect(writeBackupManifest(db, LEDGER, KEY, new Date('2026-11-25T02:00:00Z'))).toEqual({ tables: 1, rows: 2, signed: true });
    // Written twice (a restored file backed up again), it replaces the first.
    writeBackupManifest(db, LEDGER, KEY, new Date('2026-11-25T02:00:00Z'));
    const found = readBackupManifest(db, 'the file', KEY)!;
    expect(found.signature).toBe('verified');
    expect(found.manifest).toMatchObject({ format: 1, createdAt: '2026-11-25T02:00:00.000Z', migrations: LEDGER, tables: [{ table: 'Credential', rows: 2 }] });
    expect(() => assertManifestHolds(db, 'the file', found.manifest, LEDGER)).not.toThrow();
    expect(describeManifestCheck(manifestCheck(found.manifest, found.signature))).toBe(
      'its one table (2 rows) match the checksums recorded when the backup was made at 2026-11-25T02:00:00.000Z; its signature verified with BACKUP_MAC_KEY',
    );
  });

  it('is absent from a database, and unsigned without a key', () => {
    const db = database();
    expect(readBackupManifest(db, 'the file', KEY)).toBeUndefined();
    writeBackupManifest(db, LEDGER, undefined);
    expect(readBackupManifest(db, 'the file', undefined)?.signature).toBe('unsigned');
    expect(() => readBackupManifest(db, 'the file', KEY)).toThrow(/^the file is not signed \(it was made without BACKUP_MAC_KEY\), and BACKUP_MAC_KEY is set/);
  });

  it('refuses another key, a manifest changed after it was signed, and one that cannot be read', () => {
    const db = database();
    writeBackupManifest(db, LEDGER, KEY);
    expect(readBackupManifest(db, 'the file', undefined)?.signature).toBe('not verified');
    expect(() => readBackupManifest(db, 'the file', `${KEY}!`)).toThrow(/^the file is not signed with this BACKUP_MAC_KEY/);
    db.prepare(`UPDATE "${BACKUP_MANIFEST_TABLE}" SET "manifest" = replace("manifest", '"rows":2', '"rows":3')`).run();
    expect(() => readBackupManifest(db, 'the file', KEY)).toThrow(/^the file is not signed with this BACKUP_MAC_KEY: it was signed with another key, or changed after it was made/);
    db.prepare(`UPDATE "${BACKUP_MANIFEST_TABLE}" SET "manifest" = 'not json', "mac" = NULL`).run();
    expect(() => readBackupManifest(db, 'the file', undefined)).toThrow(/^the file has a backup manifest that cannot be read/);
  });

  it('finds a changed row, an added row, an added or missing table, and other migrations, naming them', () => {
    const db = database();
    writeBackupManifest(db, LEDGER, undefined);
    const { manifest } = readBackupManifest(db, 'the file', undefined)!;
    db.prepare(`UPDATE "Credential" SET "publicKey" = 'pQECAyYgASFYIC' WHERE "id" = 'c1'`).run();
    expect(() => assertManifestHolds(db, 'the file', manifest, LEDGER)).toThrow(DataError);
    expect(() => assertManifestHolds(db, 'the file', manifest, LEDGER)).toThrow(/: the rows of table Credential differ from its recorded checksum; nothing was changed$/);
    db.exec(`INSERT INTO "Credential" VALUES ('c3', 'x'); CREATE TABLE "Extra" ("x" INTEGER)`);
    expect(() => assertManifestHolds(db, 'the file', manifest, LEDGER)).toThrow(/: table Credential has 3 rows, and 2 were recorded; table Extra is not in it;/);
    db.exec(`DROP TABLE "Credential"`);
    expect(() => assertManifestHolds(db, 'the file', manifest, LEDGER)).toThrow(/table Credential is missing/);
    expect(() => assertManifestHolds(db, 'the file', manifest, [...LEDGER, '20261123010000_features'])).toThrow(/does not hold the migrations its manifest recorded/);
  });
});
