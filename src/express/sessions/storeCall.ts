/**
 * Calls an express-session store method the way stores are written: with a callback, or (newer
 * stores, connect-redis) returning a promise as well. The first answer counts.
 */
export function storeCall<T>(call: (done: (error: unknown, value?: T) => void) => unknown): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const returned = call((error, value) => (error ? reject(error) : resolve(value as T)));
    // A promise's value counts only when it has one: connect-redis's resolves with the callback's return.
    if (returned && typeof (returned as Promise<T>).then === 'function') (returned as Promise<T>).then((value) => value !== undefined && resolve(value), reject);
  });
}
