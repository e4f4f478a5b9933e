import type { Migration } from '../store/migrate';
import { describeVersion, schemaVersion } from './schemaVersion';

const migrations: Migration[] = [
  { name: '20261122000000_init', sql: '', checksum: 'a' },
  { name: '20261123010000_features', sql: '', checksum: 'b' },
];

describe('schemaVersion', () => {
  it('is none without a ledger', () => {
    expect(schemaVersion(undefined, migrations)).toEqual({ state: 'none' });
  });

  it('is current with every migration and nothing else', () => {
    const version = schemaVersion([{ name: '20261123010000_features', checksum: 'b' }, { name: '20261122000000_init', checksum: 'a' }], migrations);
    expect(version).toEqual({ state: 'current', latest: '20261123010000_features' });
    expect(describeVersion(version)).toBe('schema 20261123010000_features');
  });

  it('is behind with some, and lists what is pending', () => {
    const version = schemaVersion([{ name: '20261122000000_init', checksum: 'a' }], migrations);
    expect(version).toEqual({ state: 'behind', latest: '20261122000000_init', pending: [migrations[1]] });
    expect(describeVersion(version)).toBe('schema 20261122000000_init (1 migration behind)');
  });

  it('is foreign with a migration it does not know, or one whose SQL differs', () => {
    expect(schemaVersion([...migrations, { name: '20991231000000_future', checksum: 'z' }], migrations)).toEqual({
      state: 'foreign',
      reason: 'it has migration 20991231000000_future, which this version does not know (a newer version wrote it)',
    });
    expect(schemaVersion([{ name: '20261122000000_init', checksum: 'x' }], migrations)).toEqual({
      state: 'foreign',
      reason: "its migration 20261122000000_init differs from this version's",
    });
  });
});
