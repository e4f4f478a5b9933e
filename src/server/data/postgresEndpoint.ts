import { Client, types } from 'pg';
import { applyPendingPostgres, MIGRATION_LEDGER, PG_MIGRATION_LOCK, type Migration } from '../store/migrate';
import type { CanonicalValue } from './canonicalValue';
import type { ColumnSchema, TableSchema } from './catalog';
import { postgresColumnKind } from './columnKinds';
import { quoteName, type DataEndpoint, type LocatedRow } from './dataEndpoint';
import { DataError } from './dataError';
import { databaseLabel } from './databaseLabel';
import { postgresValue } from './encodeValue';
import type { LedgerEntry } from './schemaVersion';
import { currentPostgresSchema, migratedPostgresSchema } from './postgresSchema';
import { readValue } from './readValue';

/**
 * Types pg would turn into JavaScript values that lose something (a timestamp into a Date in the
 * process's time zone, a bigint or numeric into a lossy number, JSON into an object): read as
 * PostgreSQL's own text instead, which `canonicalValue` reads exactly.
 */
const RAW_TEXT_OIDS = new Set([20, 1700, 1082, 1114, 1184, 114, 3802]);
const rawTypes = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    RAW_TEXT_OIDS.has(oid) ? (value: string) => value : types.getTypeParser(oid, format as 'text')) as typeof types.getTypeParser,
};

/** `$n::type`, so every parameter is read as its column's type whatever JavaScript value carries it. */
const parameter = (n: number, column: ColumnSchema) => `$${n}::${quoteName(column.sqlType)}`;

function connectError(error: unknown, role: string, label: string): DataError {
  const { code, message } = error as { code?: string; message?: string };
  if (code === '3D000') return new DataError(`the ${role} database ${label} does not exist${role === 'target' ? ' (create it first: CREATE DATABASE …)' : ''}`);
  if (code === '28P01' || code === '28000') return new DataError(`PostgreSQL refused the login of the ${role} ${label}`);
  if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'ETIMEDOUT' || code === 'EAI_AGAIN') return new DataError(`cannot reach PostgreSQL for the ${role} ${label} (${code})`);
  return new DataError(`cannot open the ${role} ${label}: ${message ?? code ?? 'unknown error'}`);
}

/** A PostgreSQL database (which must exist) as a source or a target, on one connection. */
export async function openPostgresEndpoint(url: string, role: 'source' | 'target'): Promise<DataEndpoint> {
  const label = databaseLabel(url);
  const client = new Client({ connectionString: url, types: rawTypes });
  // A dropped connection fails the query in flight; without a listener it would crash the process.
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query(`SET TIME ZONE 'UTC'; SET DateStyle = 'ISO, YMD'`);
  } catch (error) {
    await client.end().catch(() => undefined);
    throw connectError(error, role, label);
  }
  let cursors = 0;
  /** Whether the write transaction is open (a reference schema is then built in a savepoint). */
  let writing = false;
  const keyOf = (table: TableSchema) => table.primaryKey.map((name) => table.columns.findIndex((c) => c.name === name));
  const whereKey = (table: TableSchema, first: number) =>
    table.primaryKey.map((name, i) => `${quoteName(name)} = ${parameter(first + i, table.columns.find((c) => c.name === name)!)}`).join(' AND ');
  const encodeKey = (table: TableSchema, key: CanonicalValue[]) => key.map((value, i) => postgresValue(table.columns.find((c) => c.name === table.primaryKey[i])!.kind, value));

  return {
    provider: 'postgresql',
    label,
    async ledger(): Promise<LedgerEntry[] | undefined> {
      const { rows } = await client.query<{ present: boolean }>('SELECT to_regclass($1) IS NOT NULL AS present', [quoteName(MIGRATION_LEDGER)]);
      if (!rows[0].present) return undefined;
      return (await client.query<LedgerEntry>(`SELECT name, checksum FROM ${quoteName(MIGRATION_LEDGER)} ORDER BY name`)).rows;
    },
    async catalog(): Promise<TableSchema[]> {
      const columns = await client.query<{ table_name: string; column_name: string; udt_name: string }>(
        `SELECT c.table_name, c.column_name, c.udt_name FROM information_schema.columns c
           JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
          WHERE c.table_schema = current_schema() AND t.table_type = 'BASE TABLE' AND c.table_name <> $1`,
        [MIGRATION_LEDGER],
      );
      const keys = await client.query<{ table_name: string; column_name: string }>(
        `SELECT tc.table_name, kcu.column_name FROM information_schema.table_constraints tc
           JOIN information_schema.key_column_usage kcu
             ON kcu.constraint_schema = tc.constraint_schema AND kcu.constraint_name = tc.constraint_name AND kcu.table_name = tc.table_name
          WHERE tc.table_schema = current_schema() AND tc.constraint_type = 'PRIMARY KEY'
          ORDER BY tc.table_name, kcu.ordinal_position`,
      );
      const references = await client.query<{ child: string; parent: string }>(
        `SELECT cl.relname AS child, pl.relname AS parent FROM pg_constraint k
           JOIN pg_class cl ON cl.oid = k.conrelid JOIN pg_class pl ON pl.oid = k.confrelid
           JOIN pg_namespace n ON n.oid = cl.relnamespace
          WHERE k.contype = 'f' AND n.nspname = current_schema()`,
      );
      const tables = new Map<string, TableSchema>();
      for (const c of columns.rows) {
        const kind = postgresColumnKind(c.udt_name);
        if (!kind) throw new DataError(`column ${c.table_name}.${c.column_name} has type ${c.udt_name}, which data copy cannot copy faithfully`);
        const table = tables.get(c.table_name) ?? { name: c.table_name, columns: [], primaryKey: [], parents: [] };
        table.columns.push({ name: c.column_name, kind, sqlType: c.udt_name });
        tables.set(c.table_name, table);
      }
      for (const k of keys.rows) tables.get(k.table_name)?.primaryKey.push(k.column_name);
      for (const r of references.rows) {
        const table = tables.get(r.child);
        if (table && !table.parents.includes(r.parent)) table.parents.push(r.parent);
      }
      return [...tables.values()]
        .map((t) => ({ ...t, columns: t.columns.sort((a, b) => (a.name < b.name ? -1 : 1)) }))
        .sort((a, b) => (a.name < b.name ? -1 : 1));
    },
    async schema() {
      return currentPostgresSchema(client);
    },
    async migratedSchema(migrations: Migration[]) {
      return migratedPostgresSchema(client, migrations, writing, `the ${role} ${label}`);
    },
    async checkBackupManifest() {
      return undefined;
    },
    async countRows(table) {
      return Number((await client.query<{ n: string }>(`SELECT count(*) AS n FROM ${quoteName(table)}`)).rows[0].n);
    },
    async beginSnapshot() {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      // The snapshot is taken at the transaction's first statement.
      await client.query('SELECT 1');
    },
    async endSnapshot() {
      await client.query('COMMIT');
    },
    async *readRows(table, batchSize) {
      const name = `copy_cursor_${++cursors}`;
      const key = keyOf(table);
      await client.query(`DECLARE ${name} NO SCROLL CURSOR FOR SELECT ${table.columns.map((c) => quoteName(c.name)).join(', ')} FROM ${quoteName(table.name)}`);
      for (;;) {
        const { rows } = await client.query<unknown[]>({ text: `FETCH FORWARD ${Math.floor(batchSize)} FROM ${name}`, rowMode: 'array' });
        if (rows.length === 0) break;
        yield rows.map((raw): LocatedRow => {
          const values = raw.map((value, i) => readValue(table, i, value));
          return { values, locator: key.map((i) => values[i]) };
        });
      }
      await client.query(`CLOSE ${name}`);
    },
    async beginWrite(tables) {
      await client.query('BEGIN');
      writing = true;
      // Concurrent migrations (a service starting on the target) wait for this transaction.
      await client.query('SELECT pg_advisory_xact_lock($1)', [PG_MIGRATION_LOCK]);
      // Reads go on; nobody else writes these tables until the copy commits or rolls back.
      if (tables.length > 0) await client.query(`LOCK TABLE ${tables.map(quoteName).join(', ')} IN EXCLUSIVE MODE`);
    },
    async applyMigrations(migrations: Migration[]) {
      return applyPendingPostgres(client, migrations);
    },
    async insertRows(table, rows) {
      if (rows.length === 0) return;
      // One array per column, zipped back into rows by unnest: one parameter per column however
      // many rows, which PostgreSQL parses and binds far faster than a VALUES list.
      const columns = table.columns;
      const arrays = columns.map((c, i) => rows.map((row) => postgresValue(c.kind, row[i])));
      const unnest = columns.map((c, i) => `$${i + 1}::${quoteName(c.sqlType)}[]`).join(', ');
      await client.query(`INSERT INTO ${quoteName(table.name)} (${columns.map((c) => quoteName(c.name)).join(', ')}) SELECT * FROM unnest(${unnest})`, arrays);
    },
    async updateRows(table, rows) {
      const sets = table.columns.map((c, i) => `${quoteName(c.name)} = ${parameter(i + 1, c)}`).join(', ');
      const text = `UPDATE ${quoteName(table.name)} SET ${sets} WHERE ${whereKey(table, table.columns.length + 1)}`;
      for (const row of rows) {
        await client.query(text, [...row.values.map((value, i) => postgresValue(table.columns[i].kind, value)), ...encodeKey(table, row.locator as CanonicalValue[])]);
      }
    },
    async deleteRows(table, locators) {
      const text = `DELETE FROM ${quoteName(table.name)} WHERE ${whereKey(table, 1)}`;
      for (const key of locators) await client.query(text, encodeKey(table, key as CanonicalValue[]));
    },
    async commitWrite() {
      await client.query('COMMIT');
      writing = false;
    },
    async abortWrite() {
      writing = false;
      await client.query('ROLLBACK').catch(() => undefined);
    },
    async close() {
      await client.end().catch(() => undefined);
    },
  };
}
