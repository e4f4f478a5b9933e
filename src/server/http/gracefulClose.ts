import type { Server, ServerResponse } from 'node:http';

export interface HttpCloseResult {
  /** Whether connections still busy at the deadline were cut. */
  forced: boolean;
}

/**
 * Returns the function that closes `server` gracefully: stop accepting, let in-flight requests
 * finish, close idle keep-alive connections at once (and each busy one as soon as its answer is
 * out), and cut whatever is left after `timeoutMs`. Must be called right after the server is
 * created, so that it sees every request.
 */
export function gracefulClose(server: Server): (timeoutMs: number) => Promise<HttpCloseResult> {
  const inFlight = new Set<ServerResponse>();
  let closing = false;
  // Shared by every response (`this`): no closure per request.
  function settled(this: ServerResponse): void {
    inFlight.delete(this);
    if (closing) server.closeIdleConnections();
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
      const deadline = setTimeout(() => {
        forced = true;
        server.closeAllConnections();
      }, timeoutMs);
      server.close(() => {
        clearTimeout(deadline);
        resolve({ forced });
      });
      server.closeIdleConnections();
    });
  };
}
