import type { Logger } from 'pino';
import { z } from 'zod';
import { ApiError } from '../../core/apiError';
import { timeOrderedUuid } from '../../core/timeOrderedUuid';
import { cursorParameter, encodeCursor } from '../../core/pageCursor';
import { ciObject, queryInt, unstorable } from '../../core/validation';
import type { EventKey, EventRepository, NewEvent, StoredEvent } from '../../store/repositories';
import { EVENT_TYPES, type EventType } from './eventTypes';

export interface AppEvent {
  type: EventType;
  /** Human-readable; never a secret, token, alias or email address. */
  message: string;
  /** What the event is about: a userId, a key id, a purpose. */
  subject: string;
  performedBy: string;
  /** The key id (last four characters) the event concerns, when one does. */
  apiKeyId?: string;
}

/** A query parameter holding the `next` of an events page (`page` or `filteredPage`): the key it carries. */
export const eventCursorParameter = () => cursorParameter((key) => eventKeyOf(key) !== undefined);

/** An event's place in the log, as a cursor carries it: `<performedAt ms>.<id>`. */
const eventKeyText = (event: EventKey) => `${event.performedAt}.${event.id}`;
function eventKeyOf(text: string): EventKey | undefined {
  const match = /^(\d{1,15})\.(.{1,64})$/s.exec(text);
  return match ? { performedAt: Number(match[1]), id: match[2] } : undefined;
}

/**
 * `pageNumber` (the reference's, and the SDKs') counts pages from the newest event; `after` (the
 * `next` of a page) continues after that page's last event by key, at the same cost however deep.
 */
export const eventsQuerySchema = ciObject({
  pageNumber: queryInt(z.number({ message: 'must be a whole number' }).int().min(1, 'must be at least 1').max(2_147_483_647).optional()),
  numberOfResults: queryInt(z.number({ message: 'must be a whole number' }).int().min(1, 'must be between 1 and 1000').max(1000, 'must be between 1 and 1000').optional()),
  after: eventCursorParameter(),
}).superRefine((query, ctx) => {
  if (query.pageNumber === undefined && query.after === undefined) ctx.addIssue({ code: 'custom', path: ['pageNumber'], message: 'is required (or after, the next of a page)' });
  if (query.pageNumber !== undefined && query.after !== undefined) ctx.addIssue({ code: 'custom', path: ['after'], message: 'cannot be combined with pageNumber' });
});

export interface EventLogOptions {
  /** How often buffered events are written; 0 = only on `flush()` (tests). */
  flushIntervalMs?: number;
  /** Events held at most; beyond it new events are dropped (and the drop is logged) rather than memory growing. */
  maxBuffered?: number;
  /**
   * Whether an app logs, when that is known without a read (cached settings); undefined when not.
   * An app known not to log has its events dropped at once instead of buffered for a second: a
   * buffered event outlives the young generation, and at thousands of requests a second that is
   * garbage collection work on every request of every app.
   */
  knownLogging?: (appId: string) => boolean | undefined;
  now?: () => number;
  /**
   * The most events one `filteredPage` with types reads (default 2 000; at least its `limit`): a
   * page of a rare type stops there, short, with a `next` that continues below what it read.
   */
  filterScanRows?: number;
}

/** What the console's event page asks `filteredPage` for; every field but `limit` optional. */
export interface EventFilter {
  /** Event types to keep (`eventType` names); undefined or empty: every type. */
  types?: string[];
  /** From this time on (epoch ms, inclusive). */
  from?: number;
  /** Before this time (epoch ms, exclusive). */
  to?: number;
  /** The key a `next` cursor carries (`eventCursorParameter` decodes one): the page continues below that event. */
  after?: string;
  /** 1..1000. */
  limit: number;
}

/** An event as the log's pages answer it. */
function eventView(appId: string, e: StoredEvent) {
  return {
    id: e.id,
    performedAt: new Date(e.performedAt).toISOString(),
    message: e.message,
    performedBy: e.performedBy,
    tenantId: appId,
    eventType: e.eventType,
    severity: e.severity,
    subject: e.subject,
    apiKeyId: e.apiKeyId,
  };
}
export type EventView = ReturnType<typeof eventView>;

/** The latest time a filter may name (9999-12-31T23:59:59.999Z): both databases store it, and it is after every event. */
const LATEST_TIME = 253_402_300_799_999;
const MAX_FILTER_TYPES = 100;

const DAY_MS = 86_400_000;
/** Rows per INSERT, well inside every driver's parameter limit. */
const WRITE_CHUNK = 500;
/** A buffer this full is written at once rather than at the next tick. */
const EARLY_FLUSH_AT = 1000;

/** What an `EventLog` is built from. */
export interface EventLogDeps {
  events: EventRepository;
  isLoggingEnabled: (appId: string) => Promise<boolean>;
  logger: Logger;
  options?: EventLogOptions;
}

/**
 * The per-app event log, as the reference service keeps it. Recording is synchronous and touches no
 * database: events wait in a bounded buffer and are written in batches on a timer, before
 * `/events` reads, and on shutdown. Whether an app logs at all is decided when the batch is
 * written (from the cached app settings), so a request never waits for that either; an app
 * already known not to log has its events dropped when they are recorded.
 */
export class EventLog {
  private pending: NewEvent[] = [];
  private dropped = 0;
  private writing: Promise<void> = Promise.resolve();
  private readonly timer: NodeJS.Timeout | undefined;
  private readonly maxBuffered: number;
  private readonly now: () => number;
  private readonly knownLogging: (appId: string) => boolean | undefined;
  private readonly filterScanRows: number;

  private readonly events: EventRepository;
  private readonly isLoggingEnabled: (appId: string) => Promise<boolean>;
  private readonly logger: Logger;

  constructor(deps: EventLogDeps) {
    this.events = deps.events;
    this.isLoggingEnabled = deps.isLoggingEnabled;
    this.logger = deps.logger;
    const options = deps.options ?? {};
    this.maxBuffered = options.maxBuffered ?? 10_000;
    this.now = options.now ?? Date.now;
    this.knownLogging = options.knownLogging ?? (() => undefined);
    this.filterScanRows = options.filterScanRows ?? 2000;
    const interval = options.flushIntervalMs ?? 1000;
    if (interval > 0) {
      this.timer = setInterval(() => void this.flush(), interval);
      this.timer.unref();
    }
  }

  /** Buffers an event; `performedAt` (epoch ms) when it happened before now (a tally of refused keys). */
  record(appId: string, event: AppEvent, performedAt?: number): void {
    if (this.knownLogging(appId) === false) return;
    if (this.pending.length >= this.maxBuffered) {
      this.dropped += 1;
      return;
    }
    const now = this.now();
    this.pending.push({
      // Time-ordered, so that the log's primary key grows at its end, as its (tenant, time) index does.
      id: timeOrderedUuid(now),
      tenant: appId,
      performedAt: performedAt ?? now,
      eventType: event.type,
      severity: EVENT_TYPES[event.type],
      message: event.message,
      performedBy: event.performedBy,
      subject: event.subject,
      apiKeyId: event.apiKeyId ?? '',
    });
    if (this.pending.length === EARLY_FLUSH_AT) void this.flush();
  }

  /** Writes what is buffered; batches are written one after another, never concurrently. Never rejects. */
  flush(): Promise<void> {
    this.writing = this.writing.then(() => this.write()).catch((error: unknown) => this.logger.warn({ err: { name: (error as Error).name } }, 'event log write failed'));
    return this.writing;
  }

  private async write(): Promise<void> {
    const batch = this.pending;
    this.pending = [];
    if (this.dropped > 0) {
      this.logger.warn({ dropped: this.dropped }, 'event log buffer full: events dropped');
      this.dropped = 0;
    }
    if (batch.length === 0) return;
    const enabled = new Set<string>();
    for (const appId of new Set(batch.map((e) => e.tenant))) {
      // An app that no longer exists (or cannot be read now) logs nothing.
      if (await this.isLoggingEnabled(appId).catch(() => false)) enabled.add(appId);
    }
    const rows = batch.filter((e) => enabled.has(e.tenant));
    for (let at = 0; at < rows.length; at += WRITE_CHUNK) {
      const chunk = rows.slice(at, at + WRITE_CHUNK);
      try {
        // One transaction per chunk; the events of an app deleted meanwhile go with it.
        await this.events.write(chunk);
      } catch (error) {
        // Kept for the next attempt while there is room (the database may be back by then).
        const room = this.maxBuffered - this.pending.length;
        this.pending.unshift(...rows.slice(at, at + Math.max(0, room)));
        this.logger.warn({ err: { name: (error as Error).name, message: (error as Error).message }, events: rows.length - at }, 'event log write failed');
        return;
      }
    }
  }

  /**
   * One page, newest first, with the app's total (kept, not counted) and `next`, the cursor of the
   * following page (null when this one was not full); anything still buffered is written first.
   * The first page and every page by `after` are one index range; a `pageNumber` past the first
   * skips the pages before it, as the reference's offset paging does.
   */
  async page(appId: string, query: z.output<typeof eventsQuerySchema>) {
    if (!(await this.isLoggingEnabled(appId))) throw new ApiError('event_logging_disabled');
    const { pageNumber = 1, numberOfResults = 100, after } = query;
    await this.flush();
    const { events, total } =
      after !== undefined || pageNumber === 1
        ? await this.events.pageAfter(appId, after === undefined ? null : eventKeyOf(after)!, numberOfResults)
        : await this.events.pageAt(appId, (pageNumber - 1) * numberOfResults, numberOfResults);
    const last = events.length === numberOfResults ? events[events.length - 1] : undefined;
    return {
      tenantId: appId,
      events: events.map((e) => eventView(appId, e)),
      totalEventCount: total,
      next: last ? encodeCursor(eventKeyText(last)) : null,
    };
  }

  /**
   * The console's event page: the app's events newest first, of `types` (any when none), from
   * `from` (inclusive) to `to` (exclusive), below the event `after` names, at most `limit`, and
   * `next`, the cursor that continues (null when nothing is left). Anything still buffered is
   * written first. One range of the app's (tenant, performedAt, id) index, never the whole log:
   * with types, one call reads at most `filterScanRows` events of that range, so a page of a rare
   * type can come back short, or empty, with a `next` that goes on below what was read. 403
   * `event_logging_disabled` while the app does not log; 400 for a filter out of bounds.
   */
  async filteredPage(appId: string, filter: EventFilter): Promise<{ events: EventView[]; next: string | null }> {
    const { types, from = 0, to = LATEST_TIME, after, limit } = filter;
    // Text no stored key or type can hold (a NUL, an unpaired surrogate) names nothing, and PostgreSQL would refuse it.
    const afterKey = after === undefined || unstorable(after) !== undefined ? undefined : eventKeyOf(after);
    const timeRefusal = (ms: number) => (Number.isInteger(ms) && ms >= 0 && ms <= LATEST_TIME ? undefined : 'must be a time between 1970 and 9999 (epoch milliseconds)');
    const refused = [
      ['types', types === undefined || (types.length <= MAX_FILTER_TYPES && types.every((t) => typeof t === 'string' && t.length <= 100 && unstorable(t) === undefined)) ? undefined : `must be at most ${MAX_FILTER_TYPES} event type names`],
      ['from', timeRefusal(from)],
      ['to', timeRefusal(to)],
      ['after', after === undefined || afterKey !== undefined ? undefined : 'must be the cursor of a previous page'],
      ['limit', Number.isInteger(limit) && limit >= 1 && limit <= 1000 ? undefined : 'must be between 1 and 1000'],
    ].filter((field): field is [string, string] => field[1] !== undefined);
    if (refused.length > 0) {
      throw new ApiError('validation_failed', { detail: `${refused[0][0]} ${refused[0][1]}.`, extras: { errors: Object.fromEntries(refused.map(([name, message]) => [name, [message]])) } });
    }
    if (!(await this.isLoggingEnabled(appId))) throw new ApiError('event_logging_disabled');
    if (from >= to) return { events: [], next: null };
    await this.flush();
    // Below the page's last event, or below `to` (an empty id sorts before every event of that millisecond).
    const before = afterKey !== undefined && afterKey.performedAt < to ? afterKey : { performedAt: to, id: '' };
    const { events, next } = await this.events.filtered(appId, {
      before,
      since: from,
      types: types === undefined || types.length === 0 ? undefined : [...new Set(types)],
      limit,
      scan: Math.max(this.filterScanRows, limit),
    });
    return { events: events.map((e) => eventView(appId, e)), next: next === null ? null : encodeCursor(eventKeyText(next)) };
  }

  /**
   * Housekeeping: drops every app's events older than its retention period (days), and takes them
   * off the app's count in the same transaction. An app with nothing to drop costs one probe of
   * its index.
   */
  async sweep(): Promise<void> {
    for (const { appId, days } of await this.events.retentionPeriods()) {
      await this.events.dropOlderThan(appId, this.now() - days * DAY_MS);
    }
  }

  /** Stops the timer and writes what is left. */
  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.flush();
  }
}
