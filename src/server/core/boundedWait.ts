/** Waits for `work` (which must not reject) at most `timeoutMs`: true when it finished in time. */
export function boundedWait(work: Promise<unknown>, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    // unref'd: a wait still running must not keep a finished process alive.
    const timer = setTimeout(() => resolve(false), timeoutMs).unref();
    void work.then(() => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}
