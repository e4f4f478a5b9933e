import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { z } from 'zod';
import { ApiError } from '../../core/apiError';
import { ciObject } from '../../core/validation';
import type { Db } from '../../store';
import { isForeignKeyViolation } from '../../core/storeErrors';
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

interface EventRow {
  id: string;
  tenant: string;
  performedAt: Date;
  eventType: string;
  severity: string;
  message: string;
  performedBy: string;
  subject: string;
  apiKeyId: string;
}

/** Query strings are text; '' (what the .NET SDK sends for "no value") means absent. */
const queryInt = <T extends z.ZodType>(schema: T) =>
  z.preprocess((v) => (v === '' ? undefined : typeof v === 'string' && /^\d{1,10}$/.test(v) ? Number(v) : v), schema);

export const eventsQuerySchema = ciObject({
  pageNumber: queryInt(z.number({ message: 'must be a whole number' }).int().min(1, 'must be at least 1').max(2_147_483_647)),
  numberOfResults: queryInt(z.number({ message: 'must be a whole number' }).int().min(1, 'must be between 1 and 1000').max(1000, 'must be between 1 and 1000').optional()),
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
}

const DAY_MS = 86_400_000;
/** Rows per INSERT, well inside every driver's parameter limit. */
const WRITE_CHUNK = 500;
/** A buffer this full is written at once rather than at the next tick. */
const EARLY_FLUSH_AT = 1000;

/**
 * The per-app event log, as the reference service keeps it. Recording is synchronous and touches no
 * database: events wait in a bounded buffer and are written in batches on a timer, before
 * `/events` reads, and on shutdown. Whether an app logs at all is decided when the batch is
 * written (from the cached app settings), so a request never waits for that either; an app
 * already known not to log has its events dropped when they are recorded.
 */
export class EventLog {
  private pending: EventRow[] = [];
  private dropped = 0;
  private writing: Promise<void> = Promise.resolve();
  private readonly timer: NodeJS.Timeout | undefined;
  private readonly maxBuffered: number;
  private readonly now: () => number;
  private readonly knownLogging: (appId: string) => boolean | undefined;

  constructor(
    private readonly db: Db,
    private readonly isLoggingEnabled: (appId: string) => Promise<boolean>,
    private readonly logger: Logger,
    options: EventLogOptions = {},
  ) {
    this.maxBuffered = options.maxBuffered ?? 10_000;
    this.now = options.now ?? Date.now;
    this.knownLogging = options.knownLogging ?? (() => undefined);
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
    this.pending.push({
      id: randomUUID(),
      tenant: appId,
      performedAt: new Date(performedAt ?? this.now()),
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
        await this.writeChunk(chunk);
      } catch (error) {
        // Kept for the next attempt while there is room (the database may be back by then).
        const room = this.maxBuffered - this.pending.length;
        this.pending.unshift(...rows.slice(at, at + Math.max(0, room)));
        this.logger.warn({ err: { name: (error as Error).name, message: (error as Error).message }, events: rows.length - at }, 'event log write failed');
        return;
      }
    }
  }

  private async writeChunk(chunk: EventRow[]): Promise<void> {
    try {
      await this.db.event.createMany({ data: chunk });
    } catch (error) {
      if (!isForeignKeyViolation(error)) throw error;
      // An app was deleted after these events were recorded (here or on another replica): its
      // events go with it, the others are written.
      const appIds = [...new Set(chunk.map((e) => e.tenant))];
      const alive = new Set((await this.db.app.findMany({ where: { id: { in: appIds } }, select: { id: true } })).map((a) => a.id));
      const kept = chunk.filter((e) => alive.has(e.tenant));
      if (kept.length > 0) await this.db.event.createMany({ data: kept });
    }
  }

  /** One page, newest first, with the app's total; anything still buffered is written first. */
  async page(appId: string, query: z.output<typeof eventsQuerySchema>) {
    if (!(await this.isLoggingEnabled(appId))) throw new ApiError('event_logging_disabled');
    const { pageNumber, numberOfResults = 100 } = query;
    await this.flush();
    const [total, rows] = await Promise.all([
      this.db.event.count({ where: { tenant: appId } }),
      this.db.event.findMany({
        where: { tenant: appId },
        orderBy: [{ performedAt: 'desc' }, { id: 'desc' }],
        skip: (pageNumber - 1) * numberOfResults,
        take: numberOfResults,
      }),
    ]);
    return {
      tenantId: appId,
      events: rows.map((e) => ({
        id: e.id,
        performedAt: e.performedAt.toISOString(),
        message: e.message,
        performedBy: e.performedBy,
        tenantId: e.tenant,
        eventType: e.eventType,
        severity: e.severity,
        subject: e.subject,
        apiKeyId: e.apiKeyId,
      })),
      totalEventCount: total,
    };
  }

  /** Housekeeping: drops every app's events older than its retention period (days). */
  async sweep(): Promise<void> {
    const apps = await this.db.app.findMany({ select: { id: true, eventLoggingRetentionPeriod: true } });
    const byRetention = new Map<number, string[]>();
    for (const app of apps) byRetention.set(app.eventLoggingRetentionPeriod, [...(byRetention.get(app.eventLoggingRetentionPeriod) ?? []), app.id]);
    for (const [days, appIds] of byRetention) {
      await this.db.event.deleteMany({ where: { tenant: { in: appIds }, performedAt: { lt: new Date(this.now() - days * DAY_MS) } } });
    }
  }

  /** Stops the timer and writes what is left. */
  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.flush();
  }
}
