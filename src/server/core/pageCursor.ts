import { z } from 'zod';
import { unstorable } from './validation';

/**
 * Keyset paging's cursor: the key of the last item of a page (a userId, an event's time and id),
 * as base64url of its UTF-8 text, so that it travels in a query string as it is. Opaque to the
 * caller; it names nothing the caller could not already see, and every query it feeds is scoped
 * by the caller's app.
 */
export const encodeCursor = (key: string): string => Buffer.from(key, 'utf8').toString('base64url');

/** The key a cursor carries; undefined for anything `encodeCursor` could not have written. */
export function decodeCursor(cursor: string): string | undefined {
  if (cursor.length === 0 || !/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined;
  const bytes = Buffer.from(cursor, 'base64url');
  const key = bytes.toString('utf8');
  // Not well-formed UTF-8, or not in its one canonical spelling: not ours.
  if (encodeCursor(key) !== cursor || unstorable(key) !== undefined) return undefined;
  return key;
}

/** A query parameter holding a cursor whose key `accept`s; '' means absent. */
export const cursorParameter = (accept: (key: string) => boolean) =>
  z.preprocess(
    (v) => (v === '' ? undefined : v),
    z
      .string({ message: 'must be the cursor of a previous page' })
      .transform((cursor, ctx) => {
        const key = decodeCursor(cursor);
        if (key === undefined || !accept(key)) {
          ctx.addIssue({ code: 'custom', message: 'must be the cursor of a previous page' });
          return z.NEVER;
        }
        return key;
      })
      .optional(),
  );
