import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';

/** The published browser client, exactly as npm ships it. */
const CLIENT_BUNDLE = join(__dirname, '..', '..', '..', 'node_modules', '@passwordlessdev', 'passwordless-client', 'dist', 'esm', 'passwordless.mjs');

/**
 * The page a customer's site would be: one module script that imports the client and exposes the
 * flows on `window.passkeys`. `apiKey` and `apiUrl` come from the page's query string. One Client
 * per page load, as a real site would hold it.
 */
const PAGE = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>passkey e2e</title></head>
<body>
<p id="status">loading</p>
<script type="module">
import { Client, isBrowserSupported } from '/passwordless.mjs';
const params = new URLSearchParams(location.search);
const client = new Client({ apiKey: params.get('apiKey'), apiUrl: params.get('apiUrl') });
window.passkeys = {
  isBrowserSupported: () => isBrowserSupported(),
  register: (token, nickname) => client.register(token, nickname),
  signinWithAlias: (alias) => client.signinWithAlias(alias),
  signinWithId: (userId) => client.signinWithId(userId),
  signinWithDiscoverable: () => client.signinWithDiscoverable(),
};
document.getElementById('status').textContent = 'ready';
</script>
</body>
</html>
`;

export interface PageServer {
  /** `http://localhost:<port>`: localhost is a secure context, so WebAuthn is available. */
  origin: string;
  close(): Promise<void>;
}

/** Serves the page at `/` and the client bundle at `/passwordless.mjs`, on 127.0.0.1 only. */
export async function startPageServer(): Promise<PageServer> {
  const bundle = readFileSync(CLIENT_BUNDLE);
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    res.setHeader('Cache-Control', 'no-store');
    if (req.method === 'GET' && path === '/') {
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(PAGE);
    } else if (req.method === 'GET' && path === '/passwordless.mjs') {
      res.writeHead(200, { 'Content-Type': 'text/javascript; charset=utf-8' }).end(bundle);
    } else {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  if (typeof address !== 'object' || !address) throw new Error('page server has no port');
  return {
    origin: `http://localhost:${address.port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
