// Generates the two Prisma clients (SQLite, PostgreSQL) from the one canonical schema.
//
// The PostgreSQL schema is derived mechanically: same models, provider and output swapped.
// Prisma's CLI insists on a schema-engine binary it would download, which these machines cannot
// do; `prisma generate` never runs that engine, so pointing PRISMA_SCHEMA_ENGINE_BINARY at any
// existing file is enough. Nothing here is needed at run time: the service applies the committed
// migration SQL itself (src/server/store/migrate.ts).
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const canonical = join(root, 'prisma', 'schema.prisma');
const derivedDir = join(root, 'prisma', 'generated');
const derived = join(derivedDir, 'postgresql.prisma');

export function derivePostgresSchema(source) {
  const out = source
    .replace('provider = "sqlite"', 'provider = "postgresql"')
    .replace('output       = "../src/server/store/generated/sqlite"', 'output       = "../../src/server/store/generated/postgresql"');
  if (out === source || !out.includes('generated/postgresql')) {
    throw new Error('prisma/schema.prisma no longer has the provider/output lines this script swaps');
  }
  return out;
}

mkdirSync(derivedDir, { recursive: true });
writeFileSync(derived, derivePostgresSchema(readFileSync(canonical, 'utf8')));

const env = {
  ...process.env,
  PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY || process.execPath,
  PRISMA_HIDE_UPDATE_MESSAGE: '1',
  CHECKPOINT_DISABLE: '1',
};
const prismaCli = join(root, 'node_modules', 'prisma', 'build', 'index.js');
for (const schema of [canonical, derived]) {
  execFileSync(process.execPath, [prismaCli, 'generate', '--schema', schema], { cwd: root, env, stdio: ['ignore', 'ignore', 'inherit'] });
}
console.error('prisma clients generated (sqlite, postgresql)');
