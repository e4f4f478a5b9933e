import { TtlCache } from '../../core/ttlCache';

/**
 * What this process last read from the database about each app's incarnation. Every read of an
 * app's keys or token keys records it; a cached key check or token key set of another incarnation
 * is then stale and read again. So once a replica has seen any request of a re-created app, the
 * old app's cached keys and tokens fail there at once, without a round trip per request.
 */
export class AppIncarnations {
  // No lifetime: an incarnation read stays true until the app changes (forget) or is evicted.
  private readonly latest = new TtlCache<string, string>({ ttlMs: Infinity, maxEntries: 100_000 });

  note(appId: string, incarnation: string): void {
    this.latest.set(appId, incarnation);
  }

  /** False only when a newer read found another incarnation. */
  isCurrent(appId: string, incarnation: string): boolean {
    const latest = this.latest.get(appId);
    return latest === undefined || latest === incarnation;
  }

  /** The app changed or went away (here or, told by a notification, on another replica). */
  forget(appId: string): void {
    this.latest.delete(appId);
  }

  clear(): void {
    this.latest.clear();
  }
}
