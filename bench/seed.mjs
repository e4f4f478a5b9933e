// Seeds users straight into the database (100 000 or 1 000 000 in seconds, not through HTTP), in the
// service's own row format: each user a User row, one passkey (Credential) and one hashed alias, as
// the middleware registers them (the email address as alias), and the app's user count (its
// AppCounter row) raised by as many, all in one transaction. First the signers' rows (the load generator signs in with them),
// then filler users up to the wanted total of passkeys.
import { createHash, randomBytes } from 'node:crypto';
import Database from 'better-sqlite3';
import pg from 'pg';

const CREDENTIAL_COLUMNS = ['tenant', 'descriptorId', 'userId', 'userHandle', 'publicKey', 'signatureCounter', 'transports', 'rpid', 'origin', 'createdAt', 'lastUsedAt', 'lastUsedDay'];
const CREDENTIAL_TYPES = ['text', 'text', 'text', 'text', 'text', 'bigint', 'text', 'text', 'text', 'timestamp', 'timestamp', 'int'];
const CHUNK = 5000;

/** The filler user number `i`: sortable names, so that a page in the middle of the list is easy to name. */
export const fillerUserId = (i) => `filler-${String(i).padStart(7, '0')}`;

/** The stored form of an alias: base64(SHA-256(app id + alias)), as the service hashes it. */
const aliasHash = (tenant, alias) => createHash('sha256').update(tenant + alias, 'utf8').digest('base64');

/** The rows of users `from`..`to`-1 of a kind (signers first, then fillers), built a chunk at a time. */
function* userChunks({ tenant, signers, fillerKey, count, firstFiller, rpId, origin, time, day }) {
  const publicKey = fillerKey ?? signers[0].publicKey;
  const users = [...signers.map((s) => ({ ...s, alias: null }))];
  let made = users.length;
  let filler = firstFiller;
  const fill = () => {
    while (users.length < CHUNK && made < count) {
      const userId = fillerUserId(filler++);
      made++;
      users.push({ descriptorId: randomBytes(32).toString('base64url'), userId, userHandle: Buffer.from(userId).toString('base64url'), publicKey, alias: aliasHash(tenant, `${userId}@example.com`) });
    }
  };
  for (fill(); users.length > 0; fill()) {
    const chunk = users.splice(0, CHUNK);
    yield {
      credentials: chunk.map((u) => [tenant, u.descriptorId, u.userId, u.userHandle, u.publicKey, 0, '[]', rpId, origin, time, time, day]),
      users: chunk.map((u) => [tenant, u.userId, 1, u.alias === null ? 0 : 1]),
      aliases: chunk.filter((u) => u.alias !== null).map((u) => [tenant, u.alias, u.userId]),
    };
  }
}

/** Inserts users with `count` passkeys in all (the signers' first, if given) for an existing app; returns the seconds it took. */
export async function seedCredentials(databaseUrl, { tenant, signers, fillerKey, count, firstFiller = 0, rpId, origin }) {
  const started = process.hrtime.bigint();
  const now = new Date();
  // The UTC day of lastUsedAt, as the service keeps it beside it (days since 1970-01-01).
  const day = Math.floor(now.getTime() / 86_400_000);
  if (count <= 0) return 0;
  if (databaseUrl.startsWith('file:')) {
    // Prisma's SQLite encoding of a DateTime; foreign keys on, as every connection of the service.
    const time = now.toISOString().replace('Z', '+00:00');
    const db = new Database(databaseUrl.slice('file:'.length), { timeout: 15_000 });
    try {
      db.pragma('foreign_keys = ON');
      const insertCredential = db.prepare(`INSERT INTO "Credential" (${CREDENTIAL_COLUMNS.map((c) => `"${c}"`).join(', ')}) VALUES (${CREDENTIAL_COLUMNS.map(() => '?').join(', ')})`);
      const insertUser = db.prepare(`INSERT INTO "User" ("tenant", "userId", "credentialsCount", "aliasCount") VALUES (?, ?, ?, ?)`);
      const insertAlias = db.prepare(`INSERT INTO "Alias" ("tenant", "aliasHash", "userId") VALUES (?, ?, ?)`);
      db.transaction(() => {
        let users = 0;
        for (const chunk of userChunks({ tenant, signers, fillerKey, count, firstFiller, rpId, origin, time, day })) {
          for (const row of chunk.users) insertUser.run(row);
          for (const row of chunk.credentials) insertCredential.run(row);
          for (const row of chunk.aliases) insertAlias.run(row);
          users += chunk.users.length;
        }
        db.prepare(`INSERT INTO "AppCounter" ("tenant", "userCount") VALUES (?, ?) ON CONFLICT ("tenant") DO UPDATE SET "userCount" = "userCount" + excluded."userCount"`).run(tenant, users);
      })();
    } finally {
      db.close();
    }
    return Number(process.hrtime.bigint() - started) / 1e9;
  }
  const time = now.toISOString();
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const columnsOf = (rows, width) => Array.from({ length: width }, (_, c) => rows.map((row) => row[c]));
  try {
    await client.query('BEGIN');
    let users = 0;
    for (const chunk of userChunks({ tenant, signers, fillerKey, count, firstFiller, rpId, origin, time, day })) {
      await client.query(`INSERT INTO "User" ("tenant", "userId", "credentialsCount", "aliasCount") SELECT * FROM unnest($1::text[], $2::text[], $3::int[], $4::int[])`, columnsOf(chunk.users, 4));
      await client.query(
        `INSERT INTO "Credential" (${CREDENTIAL_COLUMNS.map((c) => `"${c}"`).join(', ')}) SELECT * FROM unnest(${CREDENTIAL_TYPES.map((t, c) => `$${c + 1}::${t}[]`).join(', ')})`,
        columnsOf(chunk.credentials, CREDENTIAL_COLUMNS.length),
      );
      if (chunk.aliases.length > 0) await client.query(`INSERT INTO "Alias" ("tenant", "aliasHash", "userId") SELECT * FROM unnest($1::text[], $2::text[], $3::text[])`, columnsOf(chunk.aliases, 3));
      users += chunk.users.length;
    }
    await client.query(`INSERT INTO "AppCounter" ("tenant", "userCount") VALUES ($1, $2) ON CONFLICT ("tenant") DO UPDATE SET "userCount" = "AppCounter"."userCount" + excluded."userCount"`, [tenant, users]);
    await client.query('COMMIT');
    // As autovacuum would soon after a load this size: the planner's statistics of the new rows.
    await client.query('ANALYZE "User", "Credential", "Alias"');
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  } finally {
    await client.end();
  }
  return Number(process.hrtime.bigint() - started) / 1e9;
}

/** How many credentials the database holds. */
/** How many webhook deliveries the outbox holds (every state). */
export async function countDeliveries(databaseUrl) {
  return countRows(databaseUrl, 'WebhookDelivery');
}

export async function countCredentials(databaseUrl) {
  return countRows(databaseUrl, 'Credential');
}

async function countRows(databaseUrl, table) {
  if (databaseUrl.startsWith('file:')) {
    const db = new Database(databaseUrl.slice('file:'.length), { readonly: true, timeout: 15_000 });
    try {
      return db.prepare(`SELECT count(*) AS n FROM "${table}"`).get().n;
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return Number((await client.query(`SELECT count(*) AS n FROM "${table}"`)).rows[0].n);
  } finally {
    await client.end();
  }
}
