import { randomUUID } from 'node:crypto';

let lastMs = -1;
let sequence = 0;

/**
 * A UUID version 7 (RFC 9562): the first 48 bits are the time in epoch milliseconds, the next 12
 * a counter within the millisecond (RFC 9562's "fixed bit-length dedicated counter"), the other 62
 * (besides version and variant) random. Still a canonical GUID to every client, but ids made one
 * after another sort one after another, also within one millisecond (up to 4 096 of them; after
 * that the counter part is random), so a table keyed by them (redeemed verify tokens) grows at the
 * end of its index instead of dirtying a random page of it on every insert, and the event log keyed
 * by (time, id) lists two events of one millisecond in the order they happened. Made from
 * `randomUUID`'s randomness, which Node draws from a pool.
 *
 * Not the `uuid` package: its current major is ESM only, which this CommonJS build and Jest
 * cannot load, for what is one line of string surgery here.
 */
export function timeOrderedUuid(now = Date.now()): string {
  const random = randomUUID(); // xxxxxxxx-xxxx-4xxx-Vxxx-xxxxxxxxxxxx, V the RFC variant already
  const ms = Math.min(Math.max(0, Math.floor(now)), 2 ** 48 - 1);
  sequence = ms === lastMs ? sequence + 1 : 0;
  lastMs = ms;
  const time = ms.toString(16).padStart(12, '0');
  const counter = sequence <= 0xfff ? sequence.toString(16).padStart(3, '0') : random.slice(15, 18);
  return `${time.slice(0, 8)}-${time.slice(8, 12)}-7${counter}${random.slice(18)}`;
}
