/**
 * `work`'s outcome, or a rejection named `Timeout` once `timeoutMs` has passed without one: a
 * dependency that stalls (a half-open connection) must not hang a health check.
 */
export function withinTimeout<T>(work: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error('no answer in time'), { name: 'Timeout' })), timeoutMs);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
