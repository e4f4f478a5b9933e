import { MemoryStore, type Options, type Store } from 'express-rate-limit';

/** Hits per key in fixed windows, on an express-rate-limit store (its memory store by default, a shared one across host processes). */
export interface WindowCounter {
  /** Counts a hit; resolves with the count in the current window and when that window ends. */
  hit(key: string): Promise<{ count: number; resetAt: Date | undefined }>;
  /** Takes back a hit counted by `hit` (a send that did not happen). */
  undo(key: string): Promise<void>;
  /** The count in the current window, without counting (0 where the store cannot tell). */
  peek(key: string): Promise<number>;
}

export function windowCounter(windowMs: number, makeStore: (() => Store) | undefined): WindowCounter {
  const store = makeStore ? makeStore() : new MemoryStore();
  // Stores read only windowMs of the limiter's options; init may be async (a Redis store's script load).
  const ready = Promise.resolve(store.init?.({ windowMs } as Options));
  return {
    async hit(key) {
      await ready;
      const { totalHits, resetTime } = await store.increment(key);
      return { count: totalHits, resetAt: resetTime };
    },
    async undo(key) {
      await ready;
      await store.decrement(key);
    },
    async peek(key) {
      await ready;
      return (await store.get?.(key))?.totalHits ?? 0;
    },
  };
}
