import { isForeignKeyViolation } from '../../core/storeErrors';
import type { Db } from '..';
import type { EventKey, EventsFilter, Queries, NewEvent, StoredEvent } from '../sql/queries';

/** What an `EventRepository` is built from. */
export interface EventRepositoryDeps {
  db: Db;
  queries: Queries;
}

/** One page of an app's events, newest first, and how many the app has (its kept count, not counted). */
export interface EventsPage {
  events: StoredEvent[];
  total: number;
}

/**
 * The per-app event log's rows: batches written and first pages read on the hot path's prepared
 * statements (the log is written on behalf of every request), the rare deep page and the
 * retention sweep through Prisma. No webhook reports an event.
 */
export class EventRepository {
  private readonly db: Db;
  private readonly queries: Queries;

  constructor(deps: EventRepositoryDeps) {
    this.db = deps.db;
    this.queries = deps.queries;
  }

  /**
   * Writes a batch of events, whatever their apps, with each app's count of them: one transaction,
   * one INSERT for the events. When an app of the batch is gone (deleted after its events were
   * recorded, here or on another replica) the batch is refused as a whole; then one read of the
   * apps finds which are still there and their events are written again, the others' dropped
   * with their app.
   */
  async write(rows: NewEvent[]): Promise<void> {
    try {
      await this.queries.writeEvents(rows);
    } catch (error) {
      if (!isForeignKeyViolation(error)) throw error;
      const appIds = [...new Set(rows.map((e) => e.tenant))];
      const alive = new Set((await this.db.app.findMany({ where: { id: { in: appIds } }, select: { id: true } })).map((a) => a.id));
      const kept = rows.filter((e) => alive.has(e.tenant));
      if (kept.length > 0) await this.queries.writeEvents(kept);
    }
  }

  /**
   * Up to `limit` events of the app after the one `after` names (null: from the newest), and the
   * app's count: one range of the (tenant, performedAt, id) index and the counter's row, on the hot path.
   */
  pageAfter(appId: string, after: EventKey | null, limit: number): Promise<EventsPage> {
    return this.queries.eventsPage(appId, after, limit);
  }

  /**
   * A window of the app's events by key and time, newest first, of some types or any (the
   * console's filtered log), and the key to continue below: one range of the (tenant, performedAt,
   * id) index on the hot path's statements. A type filter reads at most `filter.scan` events of the
   * window, however rare the type (the index is cut there first, by the index alone).
   */
  filtered(appId: string, filter: EventsFilter): Promise<{ events: StoredEvent[]; next: EventKey | null }> {
    return this.queries.eventsFiltered(appId, filter);
  }

  /**
   * Up to `limit` events of the app after skipping the `skip` newest, and the app's count: two
   * statements at once through Prisma (the reference's offset paging, which reads the rows it skips).
   */
  async pageAt(appId: string, skip: number, limit: number): Promise<EventsPage> {
    const [counter, rows] = await Promise.all([
      this.db.appCounter.findUnique({ where: { tenant: appId }, select: { eventCount: true } }),
      this.db.event.findMany({ where: { tenant: appId }, orderBy: [{ performedAt: 'desc' }, { id: 'desc' }], skip, take: limit }),
    ]);
    return { total: counter?.eventCount ?? 0, events: rows.map((e) => ({ ...e, performedAt: e.performedAt.getTime() })) };
  }

  /** Every app and how many days it keeps its events: one read of the apps. */
  async retentionPeriods(): Promise<{ appId: string; days: number }[]> {
    const apps = await this.db.app.findMany({ select: { id: true, eventLoggingRetentionPeriod: true } });
    return apps.map((app) => ({ appId: app.id, days: app.eventLoggingRetentionPeriod }));
  }

  /**
   * Deletes the app's events older than `before` (epoch ms) and takes them off its count, in one
   * transaction. An app with nothing to drop costs one probe of its (tenant, performedAt, id) index and
   * no transaction. Returns how many went.
   */
  async dropOlderThan(appId: string, before: number): Promise<number> {
    const where = { tenant: appId, performedAt: { lt: new Date(before) } };
    if (!(await this.db.event.findFirst({ where, select: { id: true } }))) return 0;
    return this.db.$transaction(async (tx) => {
      const { count } = await tx.event.deleteMany({ where });
      await tx.appCounter.updateMany({ where: { tenant: appId }, data: { eventCount: { decrement: count } } });
      return count;
    });
  }
}
