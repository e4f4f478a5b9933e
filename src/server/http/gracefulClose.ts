import type { Server, ServerResponse } from 'node:http';

export interface HttpCloseResult {
  /** Whether connections still busy at the deadline were cut. */
  forced: boolean;
}

/** After cutting connections, how long their responses may take to report that they are closed. */
const SETTLE_AFTER_CUT_MS = 1000;

/**
 * Returns the function that closes `server` gracefully: stop accepting, let in-flight requests
 * finish, close idle keep-alive connections at once (and each busy one as soon as its answer is
 * out), and cut whatever is left after `timeoutMs`. It resolves once every response is closed (so
 * each has been logged), not merely the sockets. Must be called right after the server is created,
 * so that it sees every request.
 */
export function gracefulClose(server: Server): (timeoutMs: number) => Promise<HttpCloseResult> {
  const inFlight = new Set<ServerResponse>();
  let closing = false;
  let whenSettled: (() => void) | undefined;
  // Shared by every response (`this`): no closure per request.
  function settled(this: ServerResponse): void {
    inFlight.delete(this);
    if (!closing) return;
    server.closeIdleConnections();
    if (inFlight.size === 0) whenSettled?.();
  }
  server.prependListener('request', (_req, res: ServerResponse) => {
    // A request on a kept-alive connection during shutdown is answered, then the connection closes.
    if (closing) res.setHeader('Connection', 'close');
    inFlight.add(res);
    res.once('close', settled);
  });
  return (timeoutMs) => {
    closing = true;
    for (const res of inFlight) if (!res.headersSent) res.setHeader('Connection', 'close');
    return new Promise((resolve) => {
      let forced = false;
      let serverClosed = false;
      const timers: NodeJS.Timeout[] = [];
      const finish = () => {
        if (!serverClosed || inFlight.size > 0) return;
        for (const timer of timers) clearTimeout(timer);
        resolve({ forced });
      };
      whenSettled = finish;
      timers.push(
        setTimeout(() => {
          forced = true;
          server.closeAllConnections();
          // A response that never reports its end must not hold the shutdown either.
          timers.push(
            setTimeout(() => {
              inFlight.clear();
              finish();
            }, SETTLE_AFTER_CUT_MS),
          );
        }, timeoutMs),
      );
      server.close(() => {
        serverClosed = true;
        finish();
      });
      server.closeIdleConnections();
    });
  };
}
