import type { IncomingHttpHeaders, Server } from 'node:http';
import { createServer } from 'node:net';

/** A port that was free on 127.0.0.1 a moment ago (listen on 0, read it, close). */
export function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.unref();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      if (typeof address !== 'object' || !address) {
        probe.close();
        reject(new Error('could not read the probe port'));
        return;
      }
      probe.close(() => resolve(address.port));
    });
  });
}

export interface Exchange {
  method: string;
  /** The URL as it arrived, before any middleware rewrote it. */
  path: string;
  requestHeaders: IncomingHttpHeaders;
  status: number;
  allowOrigin: string | undefined;
  allowHeaders: string | undefined;
}

/**
 * Records every request the server answers (method, path, headers, status, CORS answer). The
 * listener is prepended so it sees the URL before Express touches it; it only observes.
 */
export function recordExchanges(server: Server): Exchange[] {
  const log: Exchange[] = [];
  server.prependListener('request', (req, res) => {
    const method = req.method ?? '';
    const path = req.url ?? '';
    const requestHeaders = { ...req.headers };
    res.once('finish', () => {
      const header = (name: string) => {
        const value = res.getHeader(name);
        return value === undefined ? undefined : String(value);
      };
      log.push({ method, path, requestHeaders, status: res.statusCode, allowOrigin: header('access-control-allow-origin'), allowHeaders: header('access-control-allow-headers') });
    });
  });
  return log;
}
