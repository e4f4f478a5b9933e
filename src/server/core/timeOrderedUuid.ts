import { randomUUID } from 'node:crypto';

/**
 * A UUID version 7 (RFC 9562): the first 48 bits are the time in epoch milliseconds, the other 74
 * (besides version and variant) random. Still a canonical GUID to every client, but ids made one
 * after another sort one after another, so a table keyed by them (redeemed verify tokens) grows at
 * the end of its index instead of dirtying a random page of it on every insert: fewer pages to
 * write and sync per commit. Made from `randomUUID`'s randomness, which Node draws from a pool.
 *
 * Not the `uuid` package: its current major is ESM only, which this CommonJS build and Jest
 * cannot load, for what is one line of string surgery here.
 */
export function timeOrderedUuid(now = Date.now()): string {
  const random = randomUUID(); // xxxxxxxx-xxxx-4xxx-Vxxx-xxxxxxxxxxxx, V the RFC variant already
  const time = Math.min(Math.max(0, Math.floor(now)), 2 ** 48 - 1).toString(16).padStart(12, '0');
  return `${time.slice(0, 8)}-${time.slice(8, 12)}-7${random.slice(15)}`;
}
