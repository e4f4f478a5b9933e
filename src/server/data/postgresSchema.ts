import type { Client } from 'pg';
import { applyPendingPostgres, type Migration } from '../store/migrate';
import { DataError } from './dataError';
import type { SchemaObject } from './schemaDifferences';

/** Objects an extension installed (pg_stat_statements' views, say) are the extension's, not the schema's. */
const NOT_FROM_EXTENSION = (catalog: string, oid: string) =>
  `NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = '${catalog}'::regclass AND d.objid = ${oid} AND d.deptype = 'e')`;

const RELATION_KINDS: Record<string, string> = { r: 'table', p: 'table', v: 'view', m: 'materialized view', S: 'sequence', f: 'foreign table', c: 'type' };

/**
 * Every object of one schema of a PostgreSQL database, `namespace` its oid: tables with their
 * columns (type, nullability, default, generation, collation), persistence and row security;
 * views, materialized views, sequences, foreign tables; constraints, indexes, triggers (and any
 * trigger, a foreign key's own included, that is disabled), rules, policies; functions and
 * procedures with their whole definition; types. With `databaseWide`, the database's event
 * triggers too, which no migration makes. Definitions are PostgreSQL's own text, with the schema's
 * name (`qualifiers`) taken out, so that the same objects in two schemas read alike.
 */
export async function postgresSchemaObjects(client: Client, namespace: number, qualifiers: string[], databaseWide: boolean): Promise<SchemaObject[]> {
  const unqualified = (text: string | null) => qualifiers.reduce((t, q) => t.split(`${q}.`).join(''), text ?? '');
  const objects: SchemaObject[] = [];
  const query = async <T extends object>(text: string) => (await client.query<T>(text, [namespace])).rows;

  const relations = await query<{ oid: number; name: string; kind: string; persistence: string; rls: boolean; forced: boolean; definition: string | null }>(
    `SELECT c.oid, c.relname AS name, c.relkind AS kind, c.relpersistence AS persistence, c.relrowsecurity AS rls, c.relforcerowsecurity AS forced,
            CASE WHEN c.relkind IN ('v', 'm') THEN pg_get_viewdef(c.oid)
                 WHEN c.relkind = 'S' THEN (SELECT concat_ws(' ', format_type(s.seqtypid, NULL), s.seqstart, s.seqincrement, s.seqmin, s.seqmax, s.seqcache, s.seqcycle) FROM pg_sequence s WHERE s.seqrelid = c.oid)
            END AS definition
       FROM pg_class c
      WHERE c.relnamespace = $1 AND c.relkind IN ('r', 'p', 'v', 'm', 'S', 'f', 'c') AND ${NOT_FROM_EXTENSION('pg_class', 'c.oid')}`,
  );
  const columns = await query<{ relation: number; line: string }>(
    `SELECT a.attrelid AS relation,
            concat_ws(' ', quote_ident(a.attname), format_type(a.atttypid, a.atttypmod), CASE WHEN a.attnotnull THEN 'NOT NULL' END,
                      'DEFAULT ' || pg_get_expr(ad.adbin, ad.adrelid), NULLIF('GENERATED ' || a.attgenerated::text, 'GENERATED '),
                      NULLIF('IDENTITY ' || a.attidentity::text, 'IDENTITY '), 'COLLATE ' || quote_ident(co.collname)) AS line
       FROM pg_attribute a
       JOIN pg_class c ON c.oid = a.attrelid
       LEFT JOIN pg_attrdef ad ON ad.adrelid = a.attrelid AND ad.adnum = a.attnum
       LEFT JOIN pg_collation co ON co.oid = a.attcollation
      WHERE c.relnamespace = $1 AND a.attnum > 0 AND NOT a.attisdropped
      ORDER BY a.attrelid, a.attnum`,
  );
  for (const r of relations) {
    const lines = columns.filter((c) => c.relation === r.oid).map((c) => c.line);
    // The reference schema is made of temporary tables: persistence `t` there is `p` here.
    const persistence = r.persistence === 'u' ? 'UNLOGGED' : '';
    const security = [r.rls && 'ROW LEVEL SECURITY', r.forced && 'FORCE ROW LEVEL SECURITY'].filter(Boolean).join(' ');
    objects.push({ kind: RELATION_KINDS[r.kind] ?? r.kind, name: r.name, definition: unqualified([persistence, `(${lines.join(', ')})`, security, r.definition ?? ''].filter(Boolean).join(' ')) });
  }

  const named = async (kind: string, text: string) => {
    for (const row of await query<{ name: string; table: string | null; definition: string | null }>(text)) {
      objects.push({ kind, name: row.name, ...(row.table ? { table: row.table } : {}), definition: unqualified(row.definition) });
    }
  };
  await named(
    'constraint',
    `SELECT k.conname AS name, COALESCE(c.relname, t.typname) AS table, pg_get_constraintdef(k.oid) AS definition
       FROM pg_constraint k LEFT JOIN pg_class c ON c.oid = k.conrelid LEFT JOIN pg_type t ON t.oid = k.contypid
      WHERE k.connamespace = $1`,
  );
  await named(
    'index',
    `SELECT i.relname AS name, t.relname AS table, pg_get_indexdef(i.oid) AS definition
       FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid
      WHERE t.relnamespace = $1`,
  );
  await named(
    'trigger',
    `SELECT g.tgname AS name, c.relname AS table, pg_get_triggerdef(g.oid) || ' ' || g.tgenabled::text AS definition
       FROM pg_trigger g JOIN pg_class c ON c.oid = g.tgrelid
      WHERE c.relnamespace = $1 AND NOT g.tgisinternal`,
  );
  // A foreign key's own triggers have names of their oids, so they are not compared; disabled, the key is not enforced.
  await named(
    'disabled foreign-key trigger',
    `SELECT g.tgname AS name, c.relname AS table, g.tgenabled::text AS definition
       FROM pg_trigger g JOIN pg_class c ON c.oid = g.tgrelid
      WHERE c.relnamespace = $1 AND g.tgisinternal AND g.tgenabled = 'D'`,
  );
  await named(
    'rule',
    `SELECT r.rulename AS name, c.relname AS table, pg_get_ruledef(r.oid) AS definition
       FROM pg_rewrite r JOIN pg_class c ON c.oid = r.ev_class
      WHERE c.relnamespace = $1 AND r.rulename <> '_RETURN'`,
  );
  await named(
    'policy',
    `SELECT p.polname AS name, c.relname AS table,
            concat_ws(' ', p.polcmd::text, p.polpermissive, p.polroles::text, pg_get_expr(p.polqual, p.polrelid), pg_get_expr(p.polwithcheck, p.polrelid)) AS definition
       FROM pg_policy p JOIN pg_class c ON c.oid = p.polrelid
      WHERE c.relnamespace = $1`,
  );
  await named(
    'function',
    `SELECT p.proname || '(' || pg_get_function_identity_arguments(p.oid) || ')' AS name, NULL AS table,
            CASE WHEN p.prokind = 'a' THEN 'aggregate' ELSE pg_get_functiondef(p.oid) END AS definition
       FROM pg_proc p
      WHERE p.pronamespace = $1 AND ${NOT_FROM_EXTENSION('pg_proc', 'p.oid')}`,
  );
  await named(
    'type',
    `SELECT t.typname AS name, NULL AS table,
            concat_ws(' ', t.typtype::text, format_type(t.typbasetype, t.typtypmod), t.typnotnull, t.typdefault,
                      (SELECT string_agg(quote_literal(e.enumlabel), ', ' ORDER BY e.enumsortorder) FROM pg_enum e WHERE e.enumtypid = t.oid)) AS definition
       FROM pg_type t
      WHERE t.typnamespace = $1 AND t.typrelid = 0 AND t.typcategory <> 'A' AND ${NOT_FROM_EXTENSION('pg_type', 't.oid')}`,
  );
  if (databaseWide) {
    for (const row of (await client.query<{ name: string; definition: string }>(`SELECT evtname AS name, concat_ws(' ', evtevent, evtfoid::regproc::text, evtenabled::text) AS definition FROM pg_event_trigger`)).rows) {
      objects.push({ kind: 'event trigger', name: row.name, definition: row.definition });
    }
  }
  return objects;
}

/** The objects of the schema the connection works in (its `current_schema()`), event triggers included. */
export async function currentPostgresSchema(client: Client): Promise<SchemaObject[]> {
  const { rows } = await client.query<{ oid: number; name: string }>(`SELECT n.oid, quote_ident(n.nspname) AS name FROM pg_namespace n WHERE n.nspname = current_schema()`);
  if (rows.length === 0) return [];
  return postgresSchemaObjects(client, rows[0].oid, [rows[0].name], true);
}

/**
 * The schema `migrations` make from nothing, built as temporary objects (the session's own
 * `pg_temp` schema, which nobody else sees) and thrown away: in a savepoint rolled back when the
 * connection is inside a transaction, else in a transaction rolled back. It needs a server that
 * takes writes (a standby refuses temporary tables).
 */
export async function migratedPostgresSchema(client: Client, migrations: Migration[], inTransaction: boolean, label: string): Promise<SchemaObject[]> {
  await client.query(inTransaction ? 'SAVEPOINT pwl_reference_schema' : 'BEGIN');
  try {
    await client.query('SET LOCAL search_path = pg_temp');
    await applyPendingPostgres(client, migrations);
    const { rows } = await client.query<{ oid: number; name: string }>(`SELECT n.oid, quote_ident(n.nspname) AS name FROM pg_namespace n WHERE n.oid = pg_my_temp_schema()`);
    return await postgresSchemaObjects(client, rows[0].oid, [rows[0].name, 'pg_temp'], false);
  } catch (error) {
    const { code, message } = error as { code?: string; message?: string };
    throw new DataError(
      `cannot build the schema this version's migrations make on ${label}, to compare with its own (${code === '25006' ? 'the server takes no writes: a standby? copy from the primary' : `${message ?? 'error'}${code ? `, ${code}` : ''}`}); nothing was changed`,
    );
  } finally {
    await client.query(inTransaction ? 'ROLLBACK TO SAVEPOINT pwl_reference_schema' : 'ROLLBACK').catch(() => undefined);
    if (inTransaction) await client.query('RELEASE SAVEPOINT pwl_reference_schema').catch(() => undefined);
  }
}
