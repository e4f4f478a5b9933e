import { createHash, hash } from 'node:crypto';
import type { CanonicalValue } from './canonicalValue';

/** SHA-256 of a row's canonical values (in the table's column order, which both sides share). */
export function rowDigest(values: CanonicalValue[]): Buffer {
  // The one-shot hash: a Hash object per row was a tenth of a copy's time.
  return hash('sha256', JSON.stringify(values), 'buffer');
}

/**
 * Row count and content checksum of a table: the sum of its rows' digests, lane by lane (eight
 * 32-bit lanes, each modulo 2^32). A sum does not depend on the order rows are read in, so the
 * two databases need not sort alike (PostgreSQL's collations and SQLite's byte order differ).
 */
export class TableChecksum {
  private readonly lanes = new Uint32Array(8);
  count = 0;

  add(digest: Buffer): void {
    for (let i = 0; i < 8; i++) this.lanes[i] = (this.lanes[i] + digest.readUInt32BE(i * 4)) >>> 0;
    this.count++;
  }

  /** 64 hex digits. */
  hex(): string {
    return Array.from(this.lanes, (lane) => lane.toString(16).padStart(8, '0')).join('');
  }
}

/** One digest of a whole database's tables (their names, counts and checksums), for a snapshot id. */
export function databaseDigest(tables: { table: string; count: number; checksum: string }[]): string {
  const lines = [...tables].sort((a, b) => (a.table < b.table ? -1 : a.table > b.table ? 1 : 0)).map((t) => `${t.table}:${t.count}:${t.checksum}`);
  return createHash('sha256').update(lines.join('\n')).digest('hex');
}
