import { createHash, type Hash } from 'node:crypto';
import type Database from 'better-sqlite3';

/** A table's rows as a backup records them. */
export interface TableDigest {
  table: string;
  rows: number;
  /** SHA-256 of every row, rowid included, in rowid order, each value with its SQLite type. */
  sha256: string;
}

/**
 * Feeds rows to a hash in the form a digest takes them: each value as a type tag (null, integer,
 * real, text, blob) and its exact content, length-prefixed, so no two rows of different values or
 * types read alike. Values are written into one reused buffer, handed to the hash when full: a
 * buffer per value was most of a backup's time.
 */
export class RowHasher {
  private buffer = Buffer.allocUnsafe(1 << 16);
  private at = 0;

  constructor(private readonly hash: Hash) {}

  add(values: readonly unknown[]): void {
    for (const value of values) {
      if (value === null || value === undefined) this.tag(0);
      else if (typeof value === 'bigint') this.text(1, value.toString());
      else if (typeof value === 'number') {
        this.room(9);
        this.buffer[this.at] = 2;
        this.buffer.writeDoubleBE(value, this.at + 1);
        this.at += 9;
      } else if (typeof value === 'string') this.text(3, value);
      else if (value instanceof Uint8Array) {
        this.room(5 + value.length);
        this.buffer[this.at] = 4;
        this.buffer.writeUInt32BE(value.length, this.at + 1);
        this.buffer.set(value, this.at + 5);
        this.at += 5 + value.length;
      } else throw new Error(`unexpected value of type ${typeof value} in an SQLite row`);
    }
  }

  /** Hands what is buffered to the hash. */
  flush(): void {
    if (this.at > 0) this.hash.update(this.buffer.subarray(0, this.at));
    this.at = 0;
  }

  private tag(tag: number): void {
    this.room(1);
    this.buffer[this.at++] = tag;
  }

  private text(tag: number, value: string): void {
    const length = Buffer.byteLength(value, 'utf8');
    this.room(5 + length);
    this.buffer[this.at] = tag;
    this.buffer.writeUInt32BE(length, this.at + 1);
    this.buffer.write(value, this.at + 5, length, 'utf8');
    this.at += 5 + length;
  }

  private room(bytes: number): void {
    if (this.at + bytes <= this.buffer.length) return;
    this.flush();
    if (bytes > this.buffer.length) this.buffer = Buffer.allocUnsafe(bytes);
  }
}

/** A row's bytes as `RowHasher` feeds them to the hash (for tests and one-off uses). */
export function rowBytes(values: readonly unknown[]): Buffer {
  const parts: Buffer[] = [];
  const hasher = new RowHasher({ update: (chunk: Buffer) => parts.push(Buffer.from(chunk)) } as unknown as Hash);
  hasher.add(values);
  hasher.flush();
  return Buffer.concat(parts);
}

/**
 * The digest of every table of an SQLite database but SQLite's own and `skipTables`, by name: the
 * rows exactly as stored (integers read as bigints, every value with its type), in rowid order
 * (primary-key order for a table without rowid), so a page-for-page copy of the file digests alike
 * and one changed byte in any value does not.
 */
export function sqliteTableDigests(db: Database.Database, skipTables: readonly string[] = []): TableDigest[] {
  const tables = db.pragma('table_list') as { schema: string; name: string; type: string; wr: number }[];
  return tables
    .filter((t) => t.schema === 'main' && t.type === 'table' && !t.name.startsWith('sqlite_') && !skipTables.includes(t.name))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map(({ name, wr }) => {
      const quoted = `"${name.replace(/"/g, '""')}"`;
      const select = db.prepare(wr ? `SELECT * FROM ${quoted}` : `SELECT rowid, * FROM ${quoted} ORDER BY rowid`);
      select.safeIntegers(true).raw(true);
      const hash = createHash('sha256');
      const hasher = new RowHasher(hash);
      let rows = 0;
      for (const row of select.iterate() as IterableIterator<unknown[]>) {
        hasher.add(row);
        rows++;
      }
      hasher.flush();
      return { table: name, rows, sha256: hash.digest('hex') };
    });
}
