/**
 * The app change feed between replicas (PostgreSQL LISTEN/NOTIFY), on the real server. Needs
 * TEST_DATABASE_URL; skipped loudly without.
 */
import { Client } from 'pg';
import { listenForAppChanges, type AppChangeFeed } from '../../src/server/store/appChangeFeed';
import { createLogger } from '../../src/server/core/logger';
import { eventually } from '../support/eventually';
import { createTestDatabase, warnIfPostgresSkipped, type TestDatabase } from '../support/testService';

warnIfPostgresSkipped();
const describePostgres = process.env.TEST_DATABASE_URL ? describe : describe.skip;

describePostgres('app change feed on PostgreSQL', () => {
  let database: TestDatabase;
  const feeds: AppChangeFeed[] = [];
  // pg queues a query sent while another is running on the same connection only under a
  // deprecation, and pg 9 refuses it: the most queries ever running at once on one connection.
  const realQuery = Client.prototype.query;
  let mostAtOnce = 0;

  beforeAll(async () => {
    database = await createTestDatabase('postgresql');
    const running = new WeakMap<object, number>();
    Client.prototype.query = function (this: Client, ...args: unknown[]) {
      const now = (running.get(this) ?? 0) + 1;
      running.set(this, now);
      mostAtOnce = Math.max(mostAtOnce, now);
      const settled = () => void running.set(this, (running.get(this) ?? 1) - 1);
      const result = (realQuery as (...a: unknown[]) => unknown).apply(this, args);
      if (result instanceof Promise) result.then(settled, settled);
      else settled();
      return result;
    } as typeof realQuery;
  });
  afterAll(async () => {
    Client.prototype.query = realQuery;
    await Promise.all(feeds.map((feed) => feed.close()));
    await database.drop();
  });

  function replica() {
    const heard: string[] = [];
    const feed = listenForAppChanges(database.url, { changed: (appId) => void heard.push(appId), missed: () => undefined }, createLogger('silent'));
    feeds.push(feed);
    return { feed, heard };
  }

  it('a burst of changes published at once reaches the other replica, every app of it, one query at a time on the connection', async () => {
    const [a, b] = [replica(), replica()];
    // Both connect on their own time: publish until the other side hears, so both are listening.
    await eventually('both replicas listening', () => {
      a.feed.publish('ready');
      return b.heard.includes('ready') || undefined;
    });

    const burst = Array.from({ length: 40 }, (_, i) => `app-${i}`);
    for (const appId of burst) a.feed.publish(appId);

    await eventually('every change heard by the other replica', () => burst.every((appId) => b.heard.includes(appId)) || undefined);
    // ...and by the publisher itself, which caches the same apps.
    await eventually('every change heard by the publisher', () => burst.every((appId) => a.heard.includes(appId)) || undefined);
    expect(mostAtOnce).toBe(1);
  });
});
