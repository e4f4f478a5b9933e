import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A certificate for `localhost` and 127.0.0.1, self-signed (its own root: give its file to NODE_EXTRA_CA_CERTS). */
export interface LocalhostCertificate {
  key: Buffer;
  cert: Buffer;
  /** The certificate's PEM file. */
  certFile: string;
  remove(): void;
}

export function localhostCertificate(): LocalhostCertificate {
  const dir = mkdtempSync(join(tmpdir(), 'pwl-proxy-cert-'));
  const keyFile = join(dir, 'key.pem');
  const certFile = join(dir, 'cert.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1', '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1', '-keyout', keyFile, '-out', certFile], { stdio: ['ignore', 'pipe', 'pipe'] });
  return { key: readFileSync(keyFile), cert: readFileSync(certFile), certFile, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface ReverseProxy {
  /** Where the public reaches it: `https://localhost:<port>` with a certificate, else `http://localhost:<port>`. */
  url: string;
  /** The upstream the proxy passes requests to (an `http://host:port` base); set once the upstream listens. */
  setUpstream(url: string): void;
  close(): Promise<void>;
}

/**
 * A loopback reverse proxy, as nginx or a load balancer is in front of a host: it terminates TLS
 * (with `certificate`), passes each request to the upstream over plain HTTP with the Host header
 * it was sent, and adds X-Forwarded-Proto, X-Forwarded-Host and X-Forwarded-For. On port 0.
 */
export async function startReverseProxy(certificate?: LocalhostCertificate): Promise<ReverseProxy> {
  let upstream: URL | undefined;
  const scheme = certificate ? 'https' : 'http';
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    if (!upstream) {
      res.writeHead(502).end('no upstream yet');
      return;
    }
    const headers = { ...req.headers };
    headers['x-forwarded-proto'] = scheme;
    headers['x-forwarded-host'] = req.headers.host ?? '';
    headers['x-forwarded-for'] = req.socket.remoteAddress ?? '';
    const forwarded = request({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    forwarded.on('error', () => (res.headersSent ? res.destroy() : res.writeHead(502).end('upstream unreachable')));
    req.pipe(forwarded);
  };
  const server: Server = certificate ? createHttpsServer({ key: certificate.key, cert: certificate.cert }, handle) : createHttpServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `${scheme}://localhost:${port}`,
    setUpstream: (url) => (upstream = new URL(url)),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
