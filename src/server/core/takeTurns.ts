/**
 * Runs tasks of one key one after another, and tasks of different keys side by side: a promise
 * chain per key, dropped once its last task is done, so memory holds only keys with work waiting.
 * What a database lock would serialise anyway waits here instead, in this process, rather than
 * holding a pooled connection while it waits (a burst of one app's requests would otherwise take
 * the whole pool and time out).
 */
export function takeTurns(): <T>(key: string, task: () => Promise<T>) => Promise<T> {
  const tails = new Map<string, Promise<unknown>>();
  return <T>(key: string, task: () => Promise<T>): Promise<T> => {
    const previous = tails.get(key) ?? Promise.resolve();
    const result = previous.then(task, task);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    tails.set(key, tail);
    void tail.then(() => {
      if (tails.get(key) === tail) tails.delete(key);
    });
    return result;
  };
}
