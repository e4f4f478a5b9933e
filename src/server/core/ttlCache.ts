export interface TtlCacheOptions {
  /** How long an entry is served after it was set; `Infinity` keeps it until it is evicted or deleted. */
  ttlMs: number;
  /** At most this many entries; setting one more evicts the oldest, so memory stays bounded whatever callers send. */
  maxEntries: number;
  /** The clock; default Date.now. */
  now?: () => number;
}

interface Entry<V> {
  value: V;
  expires: number;
}

/**
 * A small in-process cache with a lifetime per entry and a cap on its size: what the service
 * keeps of key checks, app features and authentication configurations between database reads.
 * A Map keeps insertion order, so the oldest entry is the first one and eviction costs O(1).
 */
export class TtlCache<K, V> {
  private readonly entries = new Map<K, Entry<V>>();
  private readonly ttlMs: number;
  private readonly maxEntries: number;
  private readonly now: () => number;

  constructor(options: TtlCacheOptions) {
    if (!(options.maxEntries >= 1)) throw new RangeError('maxEntries must be at least 1');
    this.ttlMs = options.ttlMs;
    this.maxEntries = options.maxEntries;
    this.now = options.now ?? Date.now;
  }

  /** The value if it is still fresh; an expired entry is dropped on the way. */
  get(key: K): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expires > this.now()) return entry.value;
    this.entries.delete(key);
    return undefined;
  }

  set(key: K, value: V): void {
    // Re-setting a key makes it the newest, so it is not the next one evicted.
    this.entries.delete(key);
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value as K);
    this.entries.set(key, { value, expires: this.now() + this.ttlMs });
  }

  delete(key: K): void {
    this.entries.delete(key);
  }

  /** Drops every entry whose value matches (e.g. everything cached of one app). */
  deleteWhere(matches: (value: V) => boolean): void {
    for (const [key, entry] of this.entries) if (matches(entry.value)) this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }
}
