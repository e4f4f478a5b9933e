export interface TurnBatchOptions<T> {
  /** What makes two items the same row. */
  keyOf(item: T): string;
  /** Runs the items (distinct keys) as one statement; answers the keys of those that took effect. */
  runAll(items: T[]): Promise<Iterable<string>>;
  /**
   * A second item of a key already in this turn's batch: `refuse` answers it false (a redemption:
   * the first asker recorded the id); `defer` runs it in the next turn, after the first has
   * committed (a conditional update, which must see the first one's result).
   */
  duplicates: 'refuse' | 'defer';
  /** Errors after which each item of the batch runs on its own, so that only its own fails (a foreign-key refusal refuses the whole statement). */
  retryAlone?(error: unknown): boolean;
}

interface Pending<T> {
  item: T;
  resolve(tookEffect: boolean): void;
  reject(error: unknown): void;
}

/**
 * Writes issued in one turn of the event loop, run as one statement: one commit, one WAL flush
 * and one round trip for all of them instead of one each (a PostgreSQL group commit of our own;
 * SQLite's writer thread groups its commits the same way). Each caller is answered as if alone:
 * whether its item took effect, or the statement's error.
 */
export function batchPerTurn<T>(options: TurnBatchOptions<T>): (item: T) => Promise<boolean> {
  let pending: Pending<T>[] = [];

  const enqueue = (entry: Pending<T>) => {
    if (pending.length === 0) {
      setImmediate(() => {
        const batch = pending;
        pending = [];
        void run(batch);
      });
    }
    pending.push(entry);
  };

  const run = async (batch: Pending<T>[]): Promise<void> => {
    const first = new Map<string, Pending<T>>();
    const later: Pending<T>[] = [];
    for (const entry of batch) {
      const key = options.keyOf(entry.item);
      if (!first.has(key)) first.set(key, entry);
      else later.push(entry);
    }
    let tookEffect: Set<string>;
    try {
      tookEffect = new Set(await options.runAll([...first.values()].map((entry) => entry.item)));
    } catch (error) {
      if (first.size > 1 && options.retryAlone?.(error)) {
        await Promise.all([...first.keys()].map((key) => run(batch.filter((entry) => options.keyOf(entry.item) === key))));
        return;
      }
      for (const entry of first.values()) entry.reject(error);
      for (const entry of later) {
        if (options.duplicates === 'defer') enqueue(entry);
        else entry.reject(error);
      }
      return;
    }
    for (const [key, entry] of first) entry.resolve(tookEffect.has(key));
    for (const entry of later) {
      if (options.duplicates === 'defer') enqueue(entry);
      else entry.resolve(false);
    }
  };

  return (item) => new Promise<boolean>((resolve, reject) => enqueue({ item, resolve, reject }));
}
