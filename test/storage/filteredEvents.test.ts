/**
 * The console's event page (`EventLog.filteredPage`): the app's events filtered by type and time,
 * newest first, paged by key, on SQLite and PostgreSQL. A type filter reads at most
 * `filterScanRows` events a call: shown here by the pages' cursors, each of which moves at most
 * that many events down the log, and in test/storage/queryPlans.test.ts by the plans.
 */
import pino from 'pino';
import { ApiError } from '../../src/server/core/apiError';
import { decodeCursor } from '../../src/server/core/pageCursor';
import type { Services } from '../../src/server/services';
import { EventLog, type EventFilter, type EventView } from '../../src/server/services/events/eventLog';
import { EventRepository } from '../../src/server/store/repositories/events';
import type { NewEvent } from '../../src/server/store/sql/queries';
import { inProcessService, type InProcessService } from '../support/inProcessWebhookService';
import { seedUsers } from '../support/seedUsers';
import { createTestDatabase, providers, uniqueAppId, warnIfPostgresSkipped, type TestDatabase } from '../support/testService';

warnIfPostgresSkipped();

const T0 = Date.UTC(2026, 10, 25, 12, 0, 0, 0);
const EVENTS = 400;
const SCAN = 25;

/** Event i: a second apart, but every tenth shares its millisecond with the one before (ties go by id); types common, less common and rare. */
function eventAt(appId: string, i: number): NewEvent {
  const type = i % 97 === 0 ? 'AdminApiKeyLocked' : i % 7 === 0 ? 'ApiUserDeleted' : 'ApiUserSignInCompleted';
  return {
    id: `ev-${String(i).padStart(5, '0')}`,
    tenant: appId,
    performedAt: T0 + (i % 10 === 1 ? i - 1 : i) * 1000,
    eventType: type,
    message: `event ${i}`,
    severity: 'Informational',
    performedBy: 'System',
    subject: `u${i}`,
    apiKeyId: '',
  };
}

/** Newest first, as the log orders them: by time, then id. */
const newestFirst = (a: NewEvent, b: NewEvent) => b.performedAt - a.performedAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

interface Walk {
  pages: EventView[][];
  /** The cursors' keys, in order ('' before the first page). */
  keys: { performedAt: number; id: string }[];
}

/** Every page of a filter, following `next`. */
async function walk(log: EventLog, appId: string, filter: Omit<EventFilter, 'after'>): Promise<Walk> {
  const pages: EventView[][] = [];
  const keys: Walk['keys'] = [];
  let after: string | undefined;
  for (;;) {
    const page = await log.filteredPage(appId, { ...filter, after });
    pages.push(page.events);
    if (page.next === null) return { pages, keys };
    after = decodeCursor(page.next)!;
    const [ms, id] = [Number(after.slice(0, after.indexOf('.'))), after.slice(after.indexOf('.') + 1)];
    keys.push({ performedAt: ms, id });
    if (pages.length > EVENTS + 2) throw new Error('the pages do not end');
  }
}

const isBelow = (e: NewEvent, key: { performedAt: number; id: string }) => e.performedAt < key.performedAt || (e.performedAt === key.performedAt && e.id < key.id);

describe.each(providers())('the event log filtered by type and time on %s', (provider) => {
  let database: TestDatabase;
  let service: InProcessService;
  let services: Services;
  /** An event log over the same store that reads at most SCAN events a call with types. */
  let narrow: EventLog;
  const appId = uniqueAppId('events');
  const otherAppId = uniqueAppId('other');
  const all: NewEvent[] = Array.from({ length: EVENTS }, (_, i) => eventAt(appId, i)).sort(newestFirst);

  beforeAll(async () => {
    database = await createTestDatabase(provider);
    // The service's clock an hour before the seeded log: the apps' own events (their creation) are outside every window from T0.
    service = await inProcessService(database, {}, { flushIntervalMs: 0, now: () => T0 - 3_600_000 });
    services = service.services;
    for (const id of [appId, otherAppId]) await services.apps.create(id, { adminEmail: 'admin@example.com', eventLoggingIsEnabled: true });
    await services.events.flush();
    await services.store.queries.writeEvents(all);
    // Another app's events at the same times and of the same types never show.
    await services.store.queries.writeEvents(all.map((e) => ({ ...e, id: `${e.id}-other`, tenant: otherAppId })));
    narrow = new EventLog({
      events: new EventRepository({ db: services.store.db, queries: services.store.queries }),
      isLoggingEnabled: async () => true,
      logger: pino({ level: 'silent' }),
      options: { flushIntervalMs: 0, filterScanRows: SCAN },
    });
  }, 60_000);
  afterAll(async () => {
    await narrow.close();
    await service.close();
    await database.drop();
  });

  /** The seeded events in a time window, newest first: what a filter must answer. */
  const expected = (filter: { types?: string[]; from?: number; to?: number }) =>
    all.filter((e) => (!filter.types?.length || filter.types.includes(e.eventType)) && e.performedAt >= (filter.from ?? T0) && e.performedAt < (filter.to ?? Infinity)).map((e) => e.id);

  it('pages every event of a time window by key, `from` inclusive and `to` exclusive, full pages but the last', async () => {
    const window = { from: T0 + 100_000, to: T0 + 300_000 };
    const { pages } = await walk(services.events, appId, { ...window, limit: 7 });
    expect(pages.flat().map((e) => e.id)).toEqual(expected(window));
    expect(pages.flat()[0].performedAt).toBe(new Date(T0 + 299_000).toISOString());
    expect(pages.flat().at(-1)!.performedAt).toBe(new Date(T0 + 100_000).toISOString());
    expect(pages.slice(0, -1).every((page) => page.length === 7)).toBe(true);
    expect(pages.flat()[0]).toEqual({
      id: 'ev-00299',
      performedAt: new Date(T0 + 299_000).toISOString(),
      message: 'event 299',
      performedBy: 'System',
      tenantId: appId,
      eventType: 'ApiUserSignInCompleted',
      severity: 'Informational',
      subject: 'u299',
      apiKeyId: '',
    });
  });

  it('answers the same pages whatever the scan budget when no type is asked for (every event read is answered)', async () => {
    const wide = await walk(services.events, appId, { from: T0, limit: 50 });
    const small = await walk(narrow, appId, { from: T0, limit: 50 });
    expect(small.pages).toEqual(wide.pages);
    expect(wide.pages.flat().map((e) => e.id)).toEqual(expected({}));
  });

  it.each([
    [['ApiUserDeleted']],
    [['AdminApiKeyLocked']],
    [['AdminApiKeyLocked', 'ApiUserDeleted']],
    [['NoSuchType']],
  ])('finds exactly the events of %j, reading at most the scan budget a call, and goes on past short pages', async (types) => {
    for (const window of [{ from: T0 }, { from: T0 + 50_000, to: T0 + 350_500 }]) {
      const { pages, keys } = await walk(narrow, appId, { types, ...window, limit: 4 });
      expect(pages.flat().map((e) => e.id)).toEqual(expected({ types, ...window }));
      // Each call's cursor moves at most SCAN events of the window down the log.
      const inWindow = all.filter((e) => e.performedAt >= window.from && e.performedAt < (window.to ?? Infinity));
      let above = inWindow.length;
      for (const key of keys) {
        const below = inWindow.filter((e) => isBelow(e, key)).length;
        expect({ types, read: above - below, atMostTheBudget: above - below <= SCAN }).toEqual({ types, read: above - below, atMostTheBudget: true });
        above = below;
      }
      // And the last call, which found the end, read what was left.
      expect({ types, lastRead: above, atMostTheBudget: above <= SCAN }).toEqual({ types, lastRead: above, atMostTheBudget: true });
    }
  });

  it('reads at least a page of events when the limit is above the scan budget', async () => {
    // Every type, named: a full page of 100 where the budget alone would read 25.
    const types = ['ApiUserSignInCompleted', 'ApiUserDeleted', 'AdminApiKeyLocked'];
    const page = await narrow.filteredPage(appId, { types, from: T0, limit: 100 });
    expect(page.events.map((e) => e.id)).toEqual(expected({ types }).slice(0, 100));
    expect(decodeCursor(page.next!)).toBe(`${T0 + 300_000}.ev-00300`);
  });

  it('treats an empty list of types as every type, and a window that ends before it starts as empty', async () => {
    expect((await services.events.filteredPage(appId, { types: [], from: T0, limit: 1000 })).events.map((e) => e.id)).toEqual(expected({}));
    expect(await services.events.filteredPage(appId, { from: T0 + 5000, to: T0 + 5000, limit: 10 })).toEqual({ events: [], next: null });
    // A cursor from past the window's end starts at the window's end.
    const page = await services.events.filteredPage(appId, { to: T0 + 10_000, after: `${T0 + 200_000}.ev-00200`, limit: 3, from: T0 });
    expect(page.events.map((e) => e.id)).toEqual(['ev-00009', 'ev-00008', 'ev-00007']);
  });

  it('writes what is buffered before it reads', async () => {
    const app = uniqueAppId('buffered');
    await services.apps.create(app, { adminEmail: 'admin@example.com', eventLoggingIsEnabled: true });
    await services.apps.setKeyLocked(app, (await services.apps.listKeys(app))[0].id, true, 'operator');
    const page = await services.events.filteredPage(app, { types: ['AdminApiKeyLocked'], limit: 10 });
    expect(page.events.map((e) => [e.eventType, e.performedBy])).toEqual([['AdminApiKeyLocked', 'operator']]);
  });

  it.each([
    ['a limit of 0', { limit: 0 }, 'limit'],
    ['a limit of 1001', { limit: 1001 }, 'limit'],
    ['a time that is not a whole number', { limit: 10, from: 1.5 }, 'from'],
    ['a time past 9999', { limit: 10, to: 253_402_300_800_000 }, 'to'],
    ['a negative time', { limit: 10, from: -1 }, 'from'],
    ['a cursor that no page gave', { limit: 10, after: 'not-a-key' }, 'after'],
    ['a cursor with a NUL', { limit: 10, after: `${T0}.ev\u0000` }, 'after'],
    ['a type with a NUL', { limit: 10, types: ['Api\u0000'] }, 'types'],
    ['too many types', { limit: 10, types: Array.from({ length: 101 }, (_, i) => `T${i}`) }, 'types'],
  ] as const)('refuses %s with a 400 naming the field', async (_case, filter, field) => {
    const error = await services.events.filteredPage(appId, filter as EventFilter).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect({ status: (error as ApiError).status, fields: Object.keys(((error as ApiError).extras as { errors: object }).errors) }).toEqual({ status: 400, fields: [field] });
  });

  it('answers 403 while the app does not log', async () => {
    const quiet = uniqueAppId('quiet');
    await services.apps.create(quiet, { adminEmail: 'admin@example.com' });
    const error = await services.events.filteredPage(quiet, { limit: 10 }).catch((e: unknown) => e);
    expect({ status: (error as ApiError).status, code: (error as ApiError).code }).toEqual({ status: 403, code: 'event_logging_disabled' });
  });

  it('finds the one event of a rare type under 20 000 others with the default budget, 2 000 events a call', async () => {
    const big = uniqueAppId('big');
    await services.apps.create(big, { adminEmail: 'admin@example.com', eventLoggingIsEnabled: true });
    await services.events.flush();
    // 20 000 ApiUserDeleted events a millisecond apart from T0, and the rare one before them all.
    await services.store.queries.writeEvents([{ ...eventAt(big, 0), id: 'rare', eventType: 'AdminApiKeyDeleted', performedAt: T0 - 1 }]);
    await seedUsers(database.url, big, { count: 20_000, at: T0, events: true });
    const calls: number[] = [];
    let after: string | undefined;
    for (;;) {
      const page = await services.events.filteredPage(big, { types: ['AdminApiKeyDeleted'], from: T0 - 1, after, limit: 10 });
      calls.push(page.events.length);
      if (page.next === null) break;
      after = decodeCursor(page.next);
    }
    // Ten calls read 2 000 events each and find nothing; the eleventh reads the last one, the rare event.
    expect(calls).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]);
  }, 60_000);
});
