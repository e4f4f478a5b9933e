import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';
import { Client } from 'pg';
import { openStore, sqliteFilename } from '../../src/server/store';
import { Prisma } from '../../src/server/store/generated/sqlite/client';

/** Every model of the schema, so a model added later is compared with no change here. */
export const MODELS: string[] = Object.values(Prisma.ModelName);

const delegateOf = (model: string) => model[0].toLowerCase() + model.slice(1);
const stableText = (row: unknown) => JSON.stringify(row, (_key, value) => (typeof value === 'bigint' ? `${value}n` : value));

/**
 * Every row of every model as the service reads it (through its own Prisma client: Dates,
 * bigints, booleans), each model's rows in a stable order: two databases that serve alike compare
 * equal, whatever their encodings.
 */
export async function contentThroughService(url: string): Promise<Record<string, unknown[]>> {
  const store = openStore(url);
  try {
    const content: Record<string, unknown[]> = {};
    for (const model of MODELS) {
      const delegate = (store.db as unknown as Record<string, { findMany(): Promise<unknown[]> }>)[delegateOf(model)];
      const rows = await delegate.findMany();
      content[model] = rows.map((row) => ({ text: stableText(row), row })).sort((a, b) => (a.text < b.text ? -1 : a.text > b.text ? 1 : 0)).map((r) => r.row);
    }
    return content;
  } finally {
    await store.close();
  }
}

/**
 * A database exactly as stored, read with the plain drivers (nothing of the copy's code): whether
 * it exists, and every table's rows, the migration ledger included. Equal before and after means
 * untouched.
 */
export async function rawDump(url: string): Promise<{ exists: boolean; tables: Record<string, string[]> }> {
  const tables: Record<string, string[]> = {};
  if (url.startsWith('file:')) {
    const file = sqliteFilename(url);
    if (!existsSync(file)) return { exists: false, tables };
    const db = new Database(file, { readonly: true, fileMustExist: true });
    try {
      const names = db.prepare(`SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name`).all() as { name: string }[];
      for (const { name } of names) tables[name] = (db.prepare(`SELECT * FROM "${name}"`).safeIntegers(true).all() as unknown[]).map(stableText).sort();
    } finally {
      db.close();
    }
    return { exists: true, tables };
  }
  const client = new Client({ connectionString: url });
  try {
    await client.connect();
  } catch (error) {
    if ((error as { code?: string }).code === '3D000') return { exists: false, tables };
    throw error;
  }
  try {
    const { rows } = await client.query<{ name: string }>(`SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name`);
    for (const { name } of rows) tables[name] = (await client.query(`SELECT * FROM "${name}"`)).rows.map(stableText).sort();
  } finally {
    await client.end();
  }
  return { exists: true, tables };
}
