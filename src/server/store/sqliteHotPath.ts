import type Database from 'better-sqlite3';
import type { HotPath } from './hotPath';
import type { HotDriver } from './hotDriver';
import { hotPathOn } from './hotPathOn';
import { HOT_STATEMENTS, statementSql, type HotRead, type HotStatement } from './hotStatements';
import { openSqliteConnection, SQLITE_BUSY_TIMEOUT_MS, SQLITE_CONNECTION_SETUP } from './sqlite';
import { startSqliteWriter } from './sqliteWriter';

/**
 * How Prisma's SQLite adapter writes a DateTime (its default `iso8601` format). Comparisons in
 * SQL are textual, so every time written or compared here must use exactly this form.
 */
export const sqliteTime = (ms: number): string => new Date(ms).toISOString().replace('Z', '+00:00');

const names = Object.keys(HOT_STATEMENTS) as HotStatement[];
const WRITES = Object.fromEntries(names.filter((name) => HOT_STATEMENTS[name].kind === 'write').map((name) => [name, statementSql(name, 'sqlite')]));
const READS = names.filter((name): name is HotRead => HOT_STATEMENTS[name].kind === 'read');
type Reads = Record<HotRead, Database.Statement>;

/** SQLite's "another connection holds the lock" (SQLITE_BUSY and its extended codes). */
const isBusy = (error: unknown): boolean => typeof (error as { code?: unknown })?.code === 'string' && (error as { code: string }).code.startsWith('SQLITE_BUSY');

/**
 * The hot path on better-sqlite3 connections of its own, opened with the service's connection
 * setup (foreign keys, synchronous = FULL) on first use, since the tables exist only once the
 * store has been migrated. Writes and units are group-committed on a thread of their own (see
 * `startSqliteWriter`); reads run on the event loop, on a connection that never waits for a lock
 * with the thread blocked (`busy_timeout = 0`): in WAL mode a reader waits only while a crashed
 * writer's log is recovered, and that wait is retried on a timer instead.
 */
export function openSqliteHotPath(filename: string): HotPath {
  let connection: { db: Database.Database; reads: Reads; writer: ReturnType<typeof startSqliteWriter> } | undefined;
  const open = () => {
    if (connection) return connection;
    const db = openSqliteConnection(filename);
    db.pragma('busy_timeout = 0');
    const reads = Object.fromEntries(READS.map((name) => [name, db.prepare(statementSql(name, 'sqlite'))])) as Reads;
    connection = { db, reads, writer: startSqliteWriter(filename, SQLITE_CONNECTION_SETUP, SQLITE_BUSY_TIMEOUT_MS, WRITES) };
    return connection;
  };
  const read = async <T>(run: (s: Reads) => T): Promise<T> => {
    const { reads } = open();
    try {
      return run(reads);
    } catch (error) {
      if (!isBusy(error)) throw error;
    }
    const deadline = Date.now() + SQLITE_BUSY_TIMEOUT_MS;
    for (let wait = 1; ; wait = Math.min(wait * 2, 25)) {
      await new Promise((resolve) => setTimeout(resolve, wait));
      try {
        return run(reads);
      } catch (error) {
        if (!isBusy(error) || Date.now() >= deadline) throw error;
      }
    }
  };
  const driver: HotDriver = {
    read: (statement, params) => read((s) => s[statement].get(params) as Record<string, unknown> | undefined),
    readAll: (statement, params) => read((s) => s[statement].all(params) as Record<string, unknown>[]),
    write: (statement, params) => open().writer.write(statement, params),
    unit: (steps) => open().writer.unit(steps),
    time: sqliteTime,
    bool: (value) => (value ? 1 : 0),
    timeOf: (value) => Date.parse(value as string),
    boolOf: (value) => value === 1,
    async close() {
      if (!connection) return;
      // What is queued still commits; then the connections go.
      await connection.writer.close();
      connection.db.close();
      connection = undefined;
    },
  };
  return hotPathOn(driver);
}
