import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Router } from 'express';

/** The published browser client's ES module, as installed. */
function publishedClientFile(): string {
  return join(dirname(require.resolve('@passwordlessdev/passwordless-client/package.json')), 'dist', 'esm', 'passwordless.mjs');
}

/** The compiled browser module: beside this file in dist/, or in dist/ when this runs from src/ (tests). */
function browserModuleFile(): string {
  const candidates = [join(__dirname, '..', 'browser', 'index.js'), join(__dirname, '..', '..', 'dist', 'browser', 'index.js')];
  const found = candidates.find((file) => existsSync(file));
  if (!found) throw new Error('The browser module is not built: run `npm run build`.');
  return found;
}

/**
 * `GET <prefix>/passwordless.mjs` (the browser module), the modules it imports from beside itself
 * (`<prefix>/<name>.js`), and `GET <prefix>/passwordless-client.mjs` (the published client it
 * wraps), so that a host page can `import` them without a bundler. The module names the client by
 * its package name, which a browser cannot resolve: as served here, it imports the client from
 * beside itself instead. All are read once.
 */
export function browserModuleRoutes(prefix: string): Router {
  const base = prefix.replace(/\/+$/, '');
  const entry = browserModuleFile();
  const served = (file: string) => readFileSync(file, 'utf8').replace(/(from\s*['"])@passwordlessdev\/passwordless-client(['"])/g, '$1./passwordless-client.mjs$2');
  const client = readFileSync(publishedClientFile(), 'utf8');
  const router = Router();
  const serve = (body: string) => (_req: unknown, res: import('express').Response) => {
    res.setHeader('Content-Type', 'text/javascript; charset=utf-8');
    res.setHeader('Cache-Control', 'no-cache');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.send(body);
  };
  router.get(`${base}/passwordless.mjs`, serve(served(entry)));
  for (const name of readdirSync(dirname(entry)).filter((file) => file.endsWith('.js') && file !== 'index.js')) {
    router.get(`${base}/${name}`, serve(served(join(dirname(entry), name))));
  }
  router.get(`${base}/passwordless-client.mjs`, serve(client));
  return router;
}
