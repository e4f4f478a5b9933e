import type { ColumnKind } from './columnKinds';

/**
 * A value as both databases agree on it, whatever their encodings: canonical text, or null. The
 * copy compares and checksums these, never the stored encodings: SQLite keeps a DateTime as
 * ISO-8601 text and a Boolean as 0/1, PostgreSQL as timestamp(3) and boolean, and pg hands a
 * bigint over as a string.
 */
export type CanonicalValue = string | null;

/** Thrown when a stored value does not fit its column's kind; the caller names the column. */
export class ValueError extends Error {}

/**
 * The canonical text of `raw`, a value as better-sqlite3 (with safe integers) or pg (with the raw
 * text of timestamps, bigints, numerics and JSON) returns it from a column of `kind`.
 *
 * - text: itself; int, bigint: decimal digits; boolean: `true` or `false`; float: JavaScript's
 *   shortest round-trip text; decimal: digits without redundant zeros; bytes: base64;
 *   json: the parsed value written again with sorted keys.
 * - datetime: UTC ISO-8601 with milliseconds (`2026-11-25T09:45:11.141Z`, microseconds only when
 *   there are any). Accepted: Prisma's SQLite text (`…T09:45:11.141+00:00`), SQLite's
 *   CURRENT_TIMESTAMP (`2026-11-25 09:45:11`, UTC), PostgreSQL's ISO output (`2026-11-25
 *   09:45:11.14`, with an offset for timestamptz), and epoch milliseconds (Prisma's
 *   `unixepoch-ms` format).
 */
export function canonicalValue(kind: ColumnKind, raw: unknown): CanonicalValue {
  if (raw === null || raw === undefined) return null;
  switch (kind) {
    case 'text':
      if (typeof raw === 'string') return raw;
      break;
    case 'int':
    case 'bigint':
      return integerText(raw);
    case 'boolean':
      return booleanText(raw);
    case 'datetime':
      return isoTime(raw);
    case 'float':
      if (typeof raw === 'number') return String(raw);
      if (typeof raw === 'bigint') return String(Number(raw));
      if (typeof raw === 'string' && raw.trim() !== '' && !Number.isNaN(Number(raw))) return String(Number(raw));
      break;
    case 'decimal':
      return decimalText(raw);
    case 'bytes':
      if (raw instanceof Uint8Array) return Buffer.from(raw).toString('base64');
      break;
    case 'json':
      return canonicalJson(typeof raw === 'string' ? parseJson(raw) : raw);
  }
  throw new ValueError(`holds ${describe(raw)}, which is not a ${kind}`);
}

function describe(raw: unknown): string {
  if (raw instanceof Uint8Array) return `${raw.length} bytes`;
  const text = typeof raw === 'string' ? JSON.stringify(raw.length > 40 ? `${raw.slice(0, 40)}…` : raw) : String(raw);
  return `${typeof raw} ${text}`;
}

function integerText(raw: unknown): string {
  if (typeof raw === 'bigint') return raw.toString();
  if (typeof raw === 'number' && Number.isSafeInteger(raw)) return String(raw);
  if (typeof raw === 'string' && /^[+-]?\d+$/.test(raw)) return BigInt(raw).toString();
  throw new ValueError(`holds ${describe(raw)}, which is not an integer`);
}

function booleanText(raw: unknown): string {
  if (raw === true || raw === 1 || raw === 1n || raw === 't' || raw === 'true' || raw === '1') return 'true';
  if (raw === false || raw === 0 || raw === 0n || raw === 'f' || raw === 'false' || raw === '0') return 'false';
  throw new ValueError(`holds ${describe(raw)}, which is not a boolean`);
}

/** The two forms nearly every stored time has: Prisma's SQLite text and PostgreSQL's output, to the millisecond. */
const PRISMA_SQLITE_TIME = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])T([01]\d|2[0-3]):[0-5]\d:[0-5]\d\.\d{3}\+00:00$/;
const POSTGRES_TIME = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01]) ([01]\d|2[0-3]):[0-5]\d:[0-5]\d\.\d{3}$/;

const TIME = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

function isoTime(raw: unknown): string {
  // Already canonical but for the separator or the zone's spelling (a day 31 in a short month goes the long way, and is refused).
  if (typeof raw === 'string' && (PRISMA_SQLITE_TIME.test(raw) || POSTGRES_TIME.test(raw)) && Number(raw.slice(8, 10)) <= 28) return `${raw.slice(0, 10)}T${raw.slice(11, 23)}Z`;
  if (raw instanceof Date && !Number.isNaN(raw.getTime())) return raw.toISOString();
  if ((typeof raw === 'number' && Number.isSafeInteger(raw)) || typeof raw === 'bigint') return fromEpoch(Number(raw), raw);
  const match = typeof raw === 'string' ? TIME.exec(raw.trim()) : null;
  if (!match) throw new ValueError(`holds ${describe(raw)}, which is not a time`);
  const [, year, month, day, hour = '0', minute = '0', second = '0', fraction = '', zone = 'Z'] = match;
  const digits = fraction.padEnd(6, '0');
  const ms = Date.UTC(Number(year), Number(month) - 1, Number(day), Number(hour), Number(minute), Number(second), Number(digits.slice(0, 3)));
  // Date.UTC rolls 31 February over into March; a stored time must name a real moment as written.
  const local = new Date(ms);
  if (local.getUTCDate() !== Number(day) || local.getUTCMonth() !== Number(month) - 1 || local.getUTCHours() !== Number(hour) || local.getUTCMinutes() !== Number(minute) || local.getUTCSeconds() !== Number(second)) {
    throw new ValueError(`holds ${describe(raw)}, which is not a time`);
  }
  const iso = fromEpoch(ms - offsetMinutes(zone) * 60_000, raw);
  const micros = digits.slice(3, 6);
  return micros === '000' ? iso : iso.replace('Z', `${micros}Z`);
}

function fromEpoch(ms: number, raw: unknown): string {
  const date = new Date(ms);
  const iso = Number.isNaN(date.getTime()) ? '' : date.toISOString();
  if (!/^\d{4}-/.test(iso)) throw new ValueError(`holds ${describe(raw)}, which is not a time between the years 0 and 9999`);
  return iso;
}

function offsetMinutes(zone: string): number {
  if (zone.toUpperCase() === 'Z') return 0;
  const [, sign, hours, minutes = '0'] = /^([+-])(\d{2}):?(\d{2})?$/.exec(zone) ?? [];
  return (sign === '-' ? -1 : 1) * (Number(hours) * 60 + Number(minutes));
}

function decimalText(raw: unknown): string {
  const given = typeof raw === 'bigint' ? raw.toString() : typeof raw === 'number' && Number.isFinite(raw) ? String(raw) : raw;
  if (typeof given !== 'string' || !/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(given)) throw new ValueError(`holds ${describe(raw)}, which is not a decimal`);
  const text = /e/i.test(given) ? expandExponent(given) : given;
  const negative = text.startsWith('-');
  let [whole, fraction = ''] = text.replace(/^[+-]/, '').split('.');
  whole = whole.replace(/^0+(?=\d)/, '') || '0';
  fraction = fraction.replace(/0+$/, '');
  const digits = fraction ? `${whole}.${fraction}` : whole;
  return negative && digits !== '0' ? `-${digits}` : digits;
}

/** `1.5e3` as `1500`, `-2e-3` as `-0.002`: decimals are compared digit by digit. */
function expandExponent(text: string): string {
  const [mantissa, exponentText] = text.toLowerCase().split('e');
  const negative = mantissa.startsWith('-');
  const [whole, fraction = ''] = mantissa.replace(/^[+-]/, '').split('.');
  const exponent = Number(exponentText);
  const digits = whole + fraction;
  const point = whole.length + exponent;
  const body = point <= 0 ? `0.${'0'.repeat(-point)}${digits}` : point >= digits.length ? digits + '0'.repeat(point - digits.length) : `${digits.slice(0, point)}.${digits.slice(point)}`;
  return `${negative ? '-' : ''}${body}`;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new ValueError(`holds ${describe(text)}, which is not JSON`);
  }
}

/** JSON with object keys sorted, so that jsonb's reordering and spacing compare equal. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value);
}
