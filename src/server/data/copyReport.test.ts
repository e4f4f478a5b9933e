import type { CopyResult } from './copyData';
import { formatCopyReport } from './copyReport';

const none = { inserted: 0, updated: 0, deleted: 0 };
const result = (overrides: Partial<CopyResult> = {}): CopyResult => ({
  mode: 'copy',
  source: 'file:/srv/passwordless.db',
  target: 'postgres://pwl@db:5432/passkeys',
  schema: '20261123040000_app_incarnation',
  applied: ['a', 'b'],
  snapshotTime: new Date('2026-11-25T09:45:11.141Z'),
  snapshotId: '2026-11-25T09:45:11.141Z@3f9a1c2b4d5e6f70',
  tables: [
    { table: 'App', sourceRows: 2, sourceChecksum: 'a'.repeat(64), targetRows: 2, targetChecksum: 'a'.repeat(64), written: { ...none, inserted: 2 }, newer: none },
    { table: 'TokenKey', sourceRows: 3, sourceChecksum: 'b'.repeat(64), targetRows: 3, targetChecksum: 'b'.repeat(64), written: { ...none, inserted: 3 }, newer: { inserted: 1, updated: 0, deleted: 2 } },
  ],
  equal: true,
  copyMs: 500,
  checkMs: 100,
  ...overrides,
});
const COMMAND = 'passwordless-selfhost data copy --from file:/srv/passwordless.db --to postgres://pwl@db:5432/passkeys';

describe('formatCopyReport', () => {
  it('shows both sides per table, the rate, the token keys, and how to copy what came after the snapshot', () => {
    const text = formatCopyReport(result(), COMMAND, false);
    expect(text).toContain('snapshot  2026-11-25T09:45:11.141Z@3f9a1c2b4d5e6f70');
    expect(text).toMatch(/^App\s+2\s+2\s+aaaaaaaaaaaaaaaa {2}equal$/m);
    expect(text).toContain('copied 5 rows in 0.5 s, 10 rows/s');
    expect(text).toContain('token keys: 3 keys copied as stored');
    expect(text).not.toContain('TOKEN_KEY_ENCRYPTION_KEY');
    expect(text).toContain('written on the source after the snapshot: 3 rows (TokenKey: 1 new, 2 gone).');
    expect(text).toContain(`${COMMAND} --since 2026-11-25T09:45:11.141Z@3f9a1c2b4d5e6f70`);
  });

  it('says the same key-encryption key is needed when one is set', () => {
    expect(formatCopyReport(result(), COMMAND, true)).toContain('every service on the target needs the same TOKEN_KEY_ENCRYPTION_KEY');
  });

  it('says when the target equals the source', () => {
    const tables = result().tables.map((t) => ({ ...t, newer: none }));
    expect(formatCopyReport(result({ tables }), COMMAND, false)).toContain('written on the source after the snapshot: nothing; the target equals the source.');
  });

  it('names every table that differs and says not to switch', () => {
    const tables = result().tables.map((t) => (t.table === 'App' ? { ...t, targetRows: 1, targetChecksum: 'c'.repeat(64) } : t));
    const text = formatCopyReport(result({ tables, equal: false }), COMMAND, false);
    expect(text).toMatch(/^App\s+2\s+1\s+a{16} in the source, c{16} in the target {2}DIFFERENT$/m);
    expect(text).toContain('THE TARGET DIFFERS FROM THE SNAPSHOT in App: do not switch to it.');
    expect(text).not.toContain('--since');
  });

  it('tells a later pass by what it wrote', () => {
    const tables = result().tables.map((t) => ({ ...t, written: t.table === 'TokenKey' ? { inserted: 1, updated: 0, deleted: 2 } : none, newer: none }));
    expect(formatCopyReport(result({ mode: 'since', tables, applied: [] }), COMMAND, false)).toContain('3 rows written (TokenKey: 1 inserted, 2 deleted)');
  });

  it('says how a source that is a backup file was checked, and nothing of it for a database', () => {
    expect(formatCopyReport(result(), COMMAND, false)).not.toContain('a backup file');
    const backup = { createdAt: '2026-11-25T09:40:00.000Z', tables: 14, rows: 190, signature: 'verified' as const };
    expect(formatCopyReport(result({ backup }), COMMAND, false)).toContain(
      '\n          a backup file: all 14 tables (190 rows) match the checksums recorded when the backup was made at 2026-11-25T09:40:00.000Z; its signature verified with BACKUP_MAC_KEY\n',
    );
    expect(formatCopyReport(result({ backup: { ...backup, signature: 'not verified' } }), COMMAND, false)).toContain('signed, but BACKUP_MAC_KEY is not set here, so the signature was not checked');
  });
});
