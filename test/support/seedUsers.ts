import { Client } from 'pg';
import { sqliteFilename } from '../../src/server/store';
import { openSqliteConnection } from '../../src/server/store/sqlite';
import { sqliteCodec } from '../../src/server/store/sql/sqliteCodec';

const sqliteTime = sqliteCodec.time;

/** The seeded user number `i` of an app, as `seedUsers` names it (`user-0000042`): names sort as numbers do. */
export const seededUserId = (i: number) => `user-${String(i).padStart(7, '0')}`;

export interface SeedOptions {
  /** Users 0..count-1: each with one passkey and one alias (plaintext on every other one), in the service's own row format. */
  count: number;
  /** Their passkeys' creation and last use. */
  at: number;
  /** Also one event per user, at `at` plus the user's number in milliseconds. */
  events?: boolean;
}

/**
 * Gives an existing app `count` users straight in the database, in one statement per table, in the
 * rows the service writes (User rows, passkeys, aliases, the app's counter row): a registration a
 * user at a time would take minutes at these sizes.
 */
export async function seedUsers(databaseUrl: string, appId: string, { count, at, events = false }: SeedOptions): Promise<void> {
  if (databaseUrl.startsWith('file:')) {
    const time = sqliteTime(at);
    const users = `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ${count - 1}) SELECT i, printf('user-%07d', i) AS userId FROM n`;
    const db = openSqliteConnection(sqliteFilename(databaseUrl));
    try {
      db.transaction(() => {
        db.exec(`INSERT INTO "User" ("tenant", "userId", "credentialsCount", "aliasCount") SELECT '${appId}', userId, 1, 1 FROM (${users})`);
        db.exec(`INSERT INTO "Credential" ("tenant", "descriptorId", "userId", "userHandle", "publicKey", "rpid", "origin", "createdAt", "lastUsedAt")
          SELECT '${appId}', printf('cred-%07d-${'x'.repeat(30)}', i), userId, userId, '${'k'.repeat(100)}', 'example.com', 'https://example.com', '${time}', '${time}' FROM (${users})`);
        db.exec(`INSERT INTO "Alias" ("tenant", "aliasHash", "userId", "plaintext")
          SELECT '${appId}', printf('alias-%07d-${'h'.repeat(30)}', i), userId, CASE WHEN i % 2 = 0 THEN userId || '@example.com' END FROM (${users})`);
        if (events) {
          db.exec(`INSERT INTO "Event" ("id", "tenant", "performedAt", "eventType", "message", "severity", "performedBy", "subject")
            SELECT printf('${appId}-event-%07d', i), '${appId}', strftime('%Y-%m-%dT%H:%M:%f+00:00', '${new Date(at).toISOString()}', '+' || (i / 1000.0) || ' seconds'),
              'ApiUserDeleted', 'm', 'Informational', 'System', userId FROM (${users})`);
        }
        db.prepare(`INSERT INTO "AppCounter" ("tenant", "userCount", "eventCount") VALUES (?, ?, ?)
          ON CONFLICT ("tenant") DO UPDATE SET "userCount" = "userCount" + excluded."userCount", "eventCount" = "eventCount" + excluded."eventCount"`).run(appId, count, events ? count : 0);
      })();
    } finally {
      db.close();
    }
    return;
  }
  const time = new Date(at).toISOString();
  const users = `SELECT i, 'user-' || lpad(i::text, 7, '0') AS "userId" FROM generate_series(0, ${count - 1}) AS i`;
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('BEGIN');
    await client.query(`INSERT INTO "User" ("tenant", "userId", "credentialsCount", "aliasCount") SELECT '${appId}', "userId", 1, 1 FROM (${users}) s`);
    await client.query(`INSERT INTO "Credential" ("tenant", "descriptorId", "userId", "userHandle", "publicKey", "rpid", "origin", "createdAt", "lastUsedAt")
      SELECT '${appId}', 'cred-' || lpad(i::text, 7, '0') || '-${'x'.repeat(30)}', "userId", "userId", '${'k'.repeat(100)}', 'example.com', 'https://example.com', '${time}', '${time}' FROM (${users}) s`);
    await client.query(`INSERT INTO "Alias" ("tenant", "aliasHash", "userId", "plaintext")
      SELECT '${appId}', 'alias-' || lpad(i::text, 7, '0') || '-${'h'.repeat(30)}', "userId", CASE WHEN i % 2 = 0 THEN "userId" || '@example.com' END FROM (${users}) s`);
    if (events) {
      await client.query(`INSERT INTO "Event" ("id", "tenant", "performedAt", "eventType", "message", "severity", "performedBy", "subject")
        SELECT '${appId}-event-' || lpad(i::text, 7, '0'), '${appId}', '${time}'::timestamp + (i || ' milliseconds')::interval, 'ApiUserDeleted', 'm', 'Informational', 'System', "userId" FROM (${users}) s`);
    }
    await client.query(
      `INSERT INTO "AppCounter" ("tenant", "userCount", "eventCount") VALUES ($1, $2, $3)
        ON CONFLICT ("tenant") DO UPDATE SET "userCount" = "AppCounter"."userCount" + excluded."userCount", "eventCount" = "AppCounter"."eventCount" + excluded."eventCount"`,
      [appId, count, events ? count : 0],
    );
    await client.query('COMMIT');
    await client.query('ANALYZE');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    await client.end();
  }
}
