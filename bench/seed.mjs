// Seeds credentials straight into the database in one transaction (100 000 rows in seconds, not
// through HTTP): the signers' rows, then filler rows of other users up to the wanted total.
import { randomBytes } from 'node:crypto';
import Database from 'better-sqlite3';
import pg from 'pg';

const COLUMNS = ['tenant', 'descriptorId', 'userId', 'userHandle', 'publicKey', 'signatureCounter', 'transports', 'rpid', 'origin', 'createdAt', 'lastUsedAt', 'lastUsedDay'];

function rowsOf({ tenant, signers, fillerKey, count, firstFiller, rpId, origin, time, day }) {
  const rows = [];
  const publicKey = fillerKey ?? signers[0].publicKey;
  for (const s of signers) rows.push([tenant, s.descriptorId, s.userId, s.userHandle, s.publicKey, 0, '[]', rpId, origin, time, time, day]);
  for (let i = 0; rows.length < count; i++) {
    const userId = `filler-${firstFiller + i}`;
    rows.push([tenant, randomBytes(32).toString('base64url'), userId, Buffer.from(userId).toString('base64url'), publicKey, 0, '[]', rpId, origin, time, time, day]);
  }
  return rows;
}

/** Inserts `count` credential rows (the signers first, if given) for an existing app. */
export async function seedCredentials(databaseUrl, { tenant, signers, fillerKey, count, firstFiller = 0, rpId, origin }) {
  const now = new Date();
  // The UTC day of lastUsedAt, as the service keeps it beside it (days since 1970-01-01).
  const day = Math.floor(now.getTime() / 86_400_000);
  if (databaseUrl.startsWith('file:')) {
    // Prisma's SQLite encoding of a DateTime; foreign keys on, as every connection of the service.
    const rows = rowsOf({ tenant, signers, fillerKey, count, firstFiller, rpId, origin, time: now.toISOString().replace('Z', '+00:00'), day });
    const db = new Database(databaseUrl.slice('file:'.length), { timeout: 15_000 });
    try {
      db.pragma('foreign_keys = ON');
      const insert = db.prepare(`INSERT INTO "Credential" (${COLUMNS.map((c) => `"${c}"`).join(', ')}) VALUES (${COLUMNS.map(() => '?').join(', ')})`);
      db.transaction(() => {
        for (const row of rows) insert.run(row);
      })();
    } finally {
      db.close();
    }
    return;
  }
  const rows = rowsOf({ tenant, signers, fillerKey, count, firstFiller, rpId, origin, time: now.toISOString(), day });
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('BEGIN');
    const CHUNK = 5000;
    for (let i = 0; i < rows.length; i += CHUNK) {
      const chunk = rows.slice(i, i + CHUNK);
      const columns = COLUMNS.map((_, c) => chunk.map((row) => row[c]));
      const types = ['text', 'text', 'text', 'text', 'text', 'bigint', 'text', 'text', 'text', 'timestamp', 'timestamp', 'int'];
      await client.query(
        `INSERT INTO "Credential" (${COLUMNS.map((c) => `"${c}"`).join(', ')}) SELECT * FROM unnest(${types.map((t, c) => `$${c + 1}::${t}[]`).join(', ')})`,
        columns,
      );
    }
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  } finally {
    await client.end();
  }
}

/** How many credentials the database holds. */
export async function countCredentials(databaseUrl) {
  if (databaseUrl.startsWith('file:')) {
    const db = new Database(databaseUrl.slice('file:'.length), { readonly: true, timeout: 15_000 });
    try {
      return db.prepare('SELECT count(*) AS n FROM "Credential"').get().n;
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return Number((await client.query('SELECT count(*) AS n FROM "Credential"')).rows[0].n);
  } finally {
    await client.end();
  }
}
