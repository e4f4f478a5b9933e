import type Database from 'better-sqlite3';
import type { SqlDriver } from './driver';
import { sqliteCodec } from './sqliteCodec';
import { COMPOSED_STATEMENTS, STATEMENTS, statementSql, type ReadStatement, type StatementName } from './statements';
import { openSqliteConnection, SQLITE_BUSY_TIMEOUT_MS, SQLITE_CONNECTION_SETUP } from '../sqlite';
import { startSqliteWriter } from './sqliteWriter';

const names = Object.keys(STATEMENTS) as StatementName[];
const WRITES = Object.fromEntries(names.filter((name) => STATEMENTS[name].kind === 'write').map((name) => [name, statementSql(name, 'sqlite')]));
const READS = names.filter((name): name is ReadStatement => STATEMENTS[name].kind === 'read');
type Reads = Record<ReadStatement, Database.Statement>;

/** SQLite's "another connection holds the lock" (SQLITE_BUSY and its extended codes). */
const isBusy = (error: unknown): boolean => typeof (error as { code?: unknown })?.code === 'string' && (error as { code: string }).code.startsWith('SQLITE_BUSY');

const changesOf = (result: unknown): number => (result as { changes?: number } | undefined)?.changes ?? 0;

/**
 * The SQL layer on better-sqlite3 connections of its own, opened with the service's connection
 * setup (foreign keys, synchronous = FULL) on first use, since the tables exist only once the
 * store has been migrated. Writes and units are group-committed on a thread of their own (see
 * `startSqliteWriter`), so every write of a turn of the event loop shares a commit already: a
 * `batched` write is a plain write here. Reads run on the event loop, on a connection that never
 * waits for a lock with the thread blocked (`busy_timeout = 0`): in WAL mode a reader waits only
 * while a crashed writer's log is recovered, and that wait is retried on a timer instead.
 */
export function openSqliteDriver(filename: string): SqlDriver {
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
  const composed = new Map<string, string>();
  return {
    codec: sqliteCodec,
    read: (statement, params) => read((s) => s[statement].get(params) as Record<string, unknown> | undefined),
    readAll: (statement, params) => read((s) => s[statement].all(params) as Record<string, unknown>[]),
    write: (statement, params) => open().writer.write(statement, params) as ReturnType<SqlDriver['write']>,
    writeAll: (statement, params) => open().writer.writeAll(statement, params),
    unit: (steps) => open().writer.unit(steps),
    batched: async (statement, params) => changesOf(await open().writer.write(statement, params)) === 1,
    guardedWithDeliveries: (write, deliveries) => open().writer.unit([write, deliveries]),
    composed(statement, size, params) {
      const name = `${statement}_${size}`;
      let sql = composed.get(name);
      if (sql === undefined) composed.set(name, (sql = COMPOSED_STATEMENTS[statement](size, 'sqlite')));
      return open().writer.writeComposed(name, sql, params);
    },
    async close() {
      if (!connection) return;
      // What is queued still commits; then the connections go.
      await connection.writer.close();
      connection.db.close();
      connection = undefined;
    },
  };
}
