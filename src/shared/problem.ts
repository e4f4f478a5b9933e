/**
 * The error shape both sides of the wire agree on: the service writes it, the Express middleware
 * reads it from the service and writes it to its own callers. RFC 9457 problem details plus the
 * reference service's `errorCode`.
 */

/** Exactly this media type, without a charset: the official Node SDK compares the string. */
export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

/** Every problem's `type` is this base followed by its `errorCode`. */
export const PROBLEM_TYPE_BASE = 'https://docs.passwordless.dev/guide/errors.html#';

export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  errorCode: string;
  detail?: string;
  /** Validation problems name each bad field with its messages. */
  errors?: Record<string, string[]>;
  [extra: string]: unknown;
}

/** A problem body for `errorCode`; `extras` (e.g. `errors`, `traceId`) are merged in last. */
export function problemBody(errorCode: string, status: number, title: string, detail?: string, extras: Record<string, unknown> = {}): ProblemBody {
  return { type: PROBLEM_TYPE_BASE + errorCode, title, status, errorCode, ...(detail === undefined ? {} : { detail }), ...extras };
}

/** Whether a parsed JSON body has the fields every problem carries. */
export function isProblemBody(value: unknown): value is ProblemBody {
  if (value === null || typeof value !== 'object') return false;
  const body = value as Record<string, unknown>;
  return typeof body.title === 'string' && typeof body.status === 'number' && typeof body.errorCode === 'string';
}
