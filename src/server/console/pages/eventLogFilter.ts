import { z } from 'zod';
import { ciObject } from '../../core/validation';
import { eventCursorParameter } from '../../services/events/eventLog';
import { EVENT_TYPES, type EventType } from '../../services/events/eventTypes';
import { parseForm } from './parseForm';

const DAY_MS = 86_400_000;
const EVENT_TYPE_NAMES = Object.keys(EVENT_TYPES) as [EventType, ...EventType[]];

/** '' (an empty field of a GET form) is absent. */
const blankIsAbsent = <T extends z.ZodType>(schema: T) => z.preprocess((v) => (v === '' ? undefined : v), schema.optional());

/** A UTC day as a date input sends it (`YYYY-MM-DD`): the time it starts, epoch ms. */
const day = () =>
  z
    .string({ message: 'must be a date (YYYY-MM-DD)' })
    .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date (YYYY-MM-DD)')
    .transform((text, ctx) => {
      const start = Date.parse(`${text}T00:00:00Z`);
      // Date.parse rolls 2026-02-30 over to March: only a day that reads back the same is one.
      if (Number.isNaN(start) || new Date(start).toISOString().slice(0, 10) !== text) {
        ctx.addIssue({ code: 'custom', message: 'must be a date (YYYY-MM-DD)' });
        return z.NEVER;
      }
      return start;
    });

/** The event log page's query: `type`, `from` and `to` (UTC days, both included), and `after` (the `next` of a page). */
const eventLogQuerySchema = ciObject({
  type: blankIsAbsent(z.enum(EVENT_TYPE_NAMES, { message: 'must be one of the event types' })),
  from: blankIsAbsent(day()),
  to: blankIsAbsent(day()),
  after: eventCursorParameter(),
}).superRefine((query, ctx) => {
  if (query.from !== undefined && query.to !== undefined && query.from > query.to) ctx.addIssue({ code: 'custom', path: ['to'], message: 'must not be before from' });
});

export interface EventLogFilter {
  type?: EventType;
  /** Events at or after this time (epoch ms): the start of the `from` day. */
  from?: number;
  /** Events before this time (epoch ms): the end of the `to` day. */
  to?: number;
  /** The key of the last event of the previous page. */
  after?: string;
  /** The query's own text, to carry to the next page. */
  keep: { type?: string; from?: string; to?: string };
}

/** The event log page's filter, read from its query string; anything else than its fields' forms is the API's 400 (`validation_failed`). */
export function eventLogFilterOf(query: unknown): EventLogFilter {
  const parsed = parseForm(eventLogQuerySchema, query);
  const dayText = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString().slice(0, 10));
  return {
    type: parsed.type,
    from: parsed.from,
    to: parsed.to === undefined ? undefined : parsed.to + DAY_MS,
    after: parsed.after,
    keep: { type: parsed.type, from: dayText(parsed.from), to: dayText(parsed.to) },
  };
}
