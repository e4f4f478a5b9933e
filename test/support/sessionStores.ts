import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { RedisStore } from 'connect-redis';
import session from 'express-session';
import { createClient } from 'redis';
import type { StoredSession } from '../../src/express';
import { nativeImport } from './nativeImport';
import { dropRedisKeys, testRedisUrl, uniqueRedisPrefix } from './redis';

/** A host's session store, and every session it holds that belongs to a user (read past the middleware, as an operator would). */
export interface StoreFixture {
  store: session.Store;
  how: 'sessionsOf' | 'redis' | 'all';
  sessionsOfUser(userId: string): Promise<StoredSession[]>;
  close(): Promise<void>;
}

type SqliteSessionStoreClass = new (db: unknown) => session.Store & { close(): void };

/** The example hosts' SQLite session store (an ES module, loaded with Node's own loader). */
export async function sqliteSessionStoreClass(): Promise<SqliteSessionStoreClass> {
  return ((await nativeImport(join(__dirname, '..', '..', 'examples', 'shared', 'sqliteSessionStore.mjs'))) as { SqliteSessionStore: SqliteSessionStoreClass }).SqliteSessionStore;
}

const belongsTo = (userId: string) => (s: StoredSession) => s.passwordlessSession?.userId === userId || (s.passport as { user?: string } | undefined)?.user === userId;

export async function memoryStore(): Promise<StoreFixture> {
  const store = new session.MemoryStore();
  return {
    store,
    how: 'all',
    sessionsOfUser: (userId) => new Promise((resolve, reject) => store.all((error, all) => (error ? reject(error) : resolve((Object.values(all ?? {}) as unknown as StoredSession[]).filter(belongsTo(userId)))))),
    close: async () => undefined,
  };
}

export async function sqliteStore(): Promise<StoreFixture> {
  const SqliteSessionStore = await sqliteSessionStoreClass();
  const db = new Database(':memory:');
  const store = new SqliteSessionStore(db);
  return {
    store,
    how: 'sessionsOf',
    sessionsOfUser: async (userId) => (db.prepare('SELECT data FROM sessions').all() as { data: string }[]).map((row) => JSON.parse(row.data) as StoredSession).filter(belongsTo(userId)),
    close: async () => {
      store.close();
      db.close();
    },
  };
}

export async function redisStore(url: string): Promise<StoreFixture> {
  const client = createClient({ url });
  await client.connect();
  const prefix = uniqueRedisPrefix();
  const store = new RedisStore({ client, prefix });
  return {
    store,
    how: 'redis',
    sessionsOfUser: async (userId) => ((await store.all()) as StoredSession[]).filter(belongsTo(userId)),
    close: async () => {
      await dropRedisKeys(url, prefix);
      await dropRedisKeys(url, `passwordless-sessions-of:${prefix}`);
      await dropRedisKeys(url, `passwordless-ended:${prefix}`);
      client.destroy();
    },
  };
}

/** The three kinds of host store the middleware supports; Redis only with TEST_REDIS_URL (said loudly otherwise). */
export function hostStores(): [string, () => Promise<StoreFixture>][] {
  const redisUrl = testRedisUrl();
  return [
    ['MemoryStore (all())', memoryStore],
    ["the example's SQLite store (sessionsOf)", sqliteStore],
    ...(redisUrl ? [['connect-redis on Redis (a per-user set)', () => redisStore(redisUrl)] as [string, () => Promise<StoreFixture>]] : []),
  ];
}

/** Two processes of one host (two store objects, each with its own memory) on one shared store. */
export interface SharedStoreFixture {
  stores: [session.Store, session.Store];
  close(): Promise<void>;
}

/** The example's SQLite store, two connections on one database file. */
export async function sharedSqliteStores(): Promise<SharedStoreFixture> {
  const SqliteSessionStore = await sqliteSessionStoreClass();
  const dir = mkdtempSync(join(tmpdir(), 'pwl-sessions-'));
  const dbs = [new Database(join(dir, 'host.db')), new Database(join(dir, 'host.db'))];
  const stores = dbs.map((db) => new SqliteSessionStore(db)) as [InstanceType<SqliteSessionStoreClass>, InstanceType<SqliteSessionStoreClass>];
  return {
    stores,
    close: async () => {
      for (const store of stores) store.close();
      for (const db of dbs) db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** connect-redis, two clients on one prefix. */
export async function sharedRedisStores(url: string): Promise<SharedStoreFixture> {
  const prefix = uniqueRedisPrefix();
  const clients = [createClient({ url }), createClient({ url })];
  for (const client of clients) await client.connect();
  return {
    stores: clients.map((client) => new RedisStore({ client, prefix })) as [RedisStore, RedisStore],
    close: async () => {
      for (const key of [prefix, `passwordless-sessions-of:${prefix}`, `passwordless-ended:${prefix}`]) await dropRedisKeys(url, key);
      for (const client of clients) client.destroy();
    },
  };
}

/** The stores that two host processes can share; Redis only with TEST_REDIS_URL. */
export function sharedHostStores(): [string, () => Promise<SharedStoreFixture>][] {
  const redisUrl = testRedisUrl();
  return [
    ["the example's SQLite store", sharedSqliteStores],
    ...(redisUrl ? [['connect-redis', () => sharedRedisStores(redisUrl)] as [string, () => Promise<SharedStoreFixture>]] : []),
  ];
}
