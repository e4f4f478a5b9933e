import type { Migration } from '../store/migrate';

export interface LedgerEntry {
  name: string;
  checksum: string;
}

/**
 * Where a database's schema stands against this version's migrations, from its migration ledger:
 * - `none`: no ledger (an empty database, or not the service's);
 * - `current`: every migration of this version, and nothing else;
 * - `behind`: some of them (an older version wrote it); `pending` lists the rest;
 * - `foreign`: a migration this version does not know, or one whose SQL differs (a newer or
 *   another version wrote it): this version cannot safely read or write it.
 */
export type SchemaVersion =
  | { state: 'none' }
  | { state: 'current'; latest: string }
  | { state: 'behind'; latest: string | undefined; pending: Migration[] }
  | { state: 'foreign'; reason: string };

export function schemaVersion(ledger: LedgerEntry[] | undefined, migrations: Migration[]): SchemaVersion {
  if (!ledger) return { state: 'none' };
  const known = new Map(migrations.map((m) => [m.name, m.checksum]));
  for (const entry of [...ledger].sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const checksum = known.get(entry.name);
    if (checksum === undefined) return { state: 'foreign', reason: `it has migration ${entry.name}, which this version does not know (a newer version wrote it)` };
    if (checksum !== entry.checksum) return { state: 'foreign', reason: `its migration ${entry.name} differs from this version's` };
  }
  const applied = new Set(ledger.map((e) => e.name));
  const pending = migrations.filter((m) => !applied.has(m.name));
  const latest = [...applied].sort().pop();
  if (pending.length === 0 && latest) return { state: 'current', latest };
  return { state: 'behind', latest, pending };
}

/** "schema 20261123040000_app_incarnation" or "no schema", for messages. */
export function describeVersion(version: SchemaVersion): string {
  switch (version.state) {
    case 'none':
      return 'no schema';
    case 'current':
      return `schema ${version.latest}`;
    case 'behind':
      return version.latest ? `schema ${version.latest} (${version.pending.length} migration${version.pending.length === 1 ? '' : 's'} behind)` : 'an empty migration ledger';
    case 'foreign':
      return 'a schema this version does not know';
  }
}
