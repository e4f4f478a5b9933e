#!/usr/bin/env node
// Measures `data copy`, `backup` and `restore` on a deployment of a chosen size (see
// docs/operations.md, "Moving and backing up data"). Needs a PostgreSQL server for the copies.
//
//   node bench/dataCopy.mjs --postgres postgres://postgres@127.0.0.1:5432/postgres [--users 50000] [--no-build]
//
// The SQLite source is filled with direct inserts in the service's own encodings: per user one
// credential, one alias and four events; plus one app, its keys and token keys.
import { execFileSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import pg from 'pg';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const { values: args } = parseArgs({ options: { postgres: { type: 'string' }, users: { type: 'string', default: '50000' }, 'no-build': { type: 'boolean', default: false } } });
if (!args.postgres) {
  process.stderr.write('usage: node bench/dataCopy.mjs --postgres <admin URL of a PostgreSQL server> [--users N]\n');
  process.exit(1);
}
if (!args['no-build']) execFileSync(process.execPath, [join(ROOT, 'scripts', 'buildIfNeeded.mjs')], { cwd: ROOT, stdio: 'inherit' });
const require = createRequire(import.meta.url);
const { copyData } = require('../dist/server/data/copyData.js');
const { backupDatabase } = require('../dist/server/data/backupDatabase.js');
const { restoreDatabase } = require('../dist/server/data/restoreDatabase.js');
const { migrateSqlite } = require('../dist/server/store/migrate.js');

const USERS = Number(args.users);
const dir = mkdtempSync(join(tmpdir(), 'pwl-datacopy-'));
const source = `file:${join(dir, 'source.db')}`;
const back = `file:${join(dir, 'back.db')}`;
const dbName = `pwl_bench_${randomBytes(4).toString('hex')}`;
const admin = new pg.Client({ connectionString: args.postgres });
await admin.connect();
await admin.query(`CREATE DATABASE "${dbName}"`);
const target = new URL(args.postgres);
target.pathname = `/${dbName}`;

const time = async (what, run) => {
  const started = process.hrtime.bigint();
  const result = await run();
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  return { what, ms, result };
};
const iso = (ms) => new Date(ms).toISOString().replace('Z', '+00:00');

try {
  migrateSqlite(join(dir, 'source.db'));
  const db = new Database(join(dir, 'source.db'));
  const now = Date.now();
  db.transaction(() => {
    db.prepare(`INSERT INTO "App" ("id", "adminEmail", "createdAt", "incarnation") VALUES ('bench', 'ops@example.com', ?, 'b3nch')`).run(iso(now));
    for (let k = 0; k < 4; k++) db.prepare(`INSERT INTO "ApiKey" ("tenant", "id", "kind", "keyHash", "scopes", "createdAt") VALUES ('bench', ?, 'secret', ?, 'token_register,token_verify', ?)`).run(`k00${k}`, randomBytes(32).toString('hex'), iso(now));
    for (let k = 0; k < 3; k++) db.prepare(`INSERT INTO "TokenKey" ("tenant", "keyId", "keyMaterial", "createdAt") VALUES ('bench', ?, ?, ?)`).run(k + 1, randomBytes(32).toString('base64'), iso(now - k * 86_400_000));
    const credential = db.prepare(
      `INSERT INTO "Credential" ("tenant", "descriptorId", "userId", "userHandle", "publicKey", "signatureCounter", "rpid", "origin", "device", "backupEligible", "isDiscoverable", "uvInitialized", "createdAt", "lastUsedAt")
       VALUES ('bench', ?, ?, ?, ?, ?, 'example.com', 'https://example.com', 'Chrome, Mac OS', 1, 1, 1, ?, ?)`,
    );
    const alias = db.prepare(`INSERT INTO "Alias" ("tenant", "aliasHash", "userId") VALUES ('bench', ?, ?)`);
    const event = db.prepare(`INSERT INTO "Event" ("id", "tenant", "performedAt", "eventType", "message", "severity", "performedBy", "subject") VALUES (?, 'bench', ?, 'ApiUserSignedIn', 'A user signed in.', 'Informational', ?, ?)`);
    for (let u = 0; u < USERS; u++) {
      const userId = `user-${u}`;
      credential.run(randomBytes(32).toString('base64url'), userId, Buffer.from(userId).toString('base64url'), randomBytes(77).toString('base64url'), u, iso(now - u), iso(now));
      alias.run(randomBytes(32).toString('base64'), userId);
      for (let e = 0; e < 4; e++) event.run(randomUUID(), iso(now - e * 1000), userId, userId);
    }
  })();
  db.close();
  const rows = 1 + 4 + 3 + USERS * 6;
  const bytes = statSync(join(dir, 'source.db')).size;
  process.stdout.write(`source: ${rows.toLocaleString('en-US')} rows (${USERS.toLocaleString('en-US')} users), ${(bytes / 1e6).toFixed(1)} MB of SQLite\n`);

  const report = ({ what, ms, result }) => {
    const copied = result.tables.reduce((n, t) => n + t.sourceRows, 0);
    const rate = (copied * 1000) / result.copyMs;
    process.stdout.write(
      `${what.padEnd(26)} ${(ms / 1000).toFixed(1).padStart(6)} s in all: copy ${(result.copyMs / 1000).toFixed(1)} s (${Math.round(rate).toLocaleString('en-US')} rows/s), read back and compare ${(result.checkMs / 1000).toFixed(1)} s, equal ${result.equal}\n`,
    );
  };
  const toPostgres = await time('SQLite -> PostgreSQL', () => copyData({ from: source, to: target.toString() }));
  report(toPostgres);
  report(await time('--since, nothing changed', () => copyData({ from: source, to: target.toString(), since: toPostgres.result.snapshotId })));
  report(await time('PostgreSQL -> SQLite', () => copyData({ from: target.toString(), to: back })));
  const backup = await time('backup', () => backupDatabase(source, join(dir, 'nightly.backup')));
  process.stdout.write(`${'backup'.padEnd(26)} ${(backup.ms / 1000).toFixed(1).padStart(6)} s (${(backup.result.bytes / 1e6).toFixed(1)} MB)\n`);
  const restore = await time('restore', () => restoreDatabase(back, join(dir, 'nightly.backup')));
  process.stdout.write(`${'restore'.padEnd(26)} ${(restore.ms / 1000).toFixed(1).padStart(6)} s\n`);
} finally {
  await admin.query(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`);
  await admin.end();
  rmSync(dir, { recursive: true, force: true });
}
