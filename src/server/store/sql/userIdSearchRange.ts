/** The highest code point, and the surrogates no well-formed string holds. */
const MAX_CODE_POINT = 0x10ffff;
const FIRST_SURROGATE = 0xd800;
const AFTER_SURROGATES = 0xe000;

const utf8 = (text: string) => Buffer.from(text, 'utf8');

/**
 * The userIds a prefix search reads, as one range of the users' key in the order of their UTF-8
 * bytes (SQLite's BINARY, PostgreSQL's "C"; code-point order, not JavaScript's UTF-16 order):
 * from `from` (inclusive) to below `below` (exclusive; undefined: to the end, which holds only
 * userIds that start with the prefix). `after`, a page's last userId, moves the start past it.
 *
 * `below` is the prefix with its last code point one higher (the lowest string above every one
 * that starts with the prefix), trailing U+10FFFF dropped first; an empty prefix, or one of U+10FFFF
 * alone, has none. The first string after `after` is `after` + U+0001: no stored userId holds a NUL.
 * Comparing with >= and <, never LIKE, a prefix's `%` and `_` are characters like any other.
 */
export function userIdSearchRange(prefix: string, after: string | undefined): { from: string; below: string | undefined } {
  const codePoints = [...prefix].map((c) => c.codePointAt(0)!);
  while (codePoints.length > 0 && codePoints[codePoints.length - 1] === MAX_CODE_POINT) codePoints.pop();
  let below: string | undefined;
  if (codePoints.length > 0) {
    const last = codePoints.pop()! + 1;
    below = String.fromCodePoint(...codePoints, last === FIRST_SURROGATE ? AFTER_SURROGATES : last);
  }
  const next = after === undefined ? undefined : `${after}\u0001`;
  const from = next !== undefined && Buffer.compare(utf8(next), utf8(prefix)) > 0 ? next : prefix;
  return { from, below };
}
