import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
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
 * `GET <prefix>/passwordless.mjs` (the browser module) and `GET <prefix>/passwordless-client.mjs`
 * (the published client it wraps), so that a host page can `import` them without a bundler. The
 * module names the client by its package name, which a browser cannot resolve: as served here, it
 * imports the client from beside itself instead. The module's own sibling files (`./name.js`
 * imports, e.g. `extensionCeremonies.js`) are served beside it under their names. All are read once.
 */
export function browserModuleRoutes(prefix: string): Router {
  const base = prefix.replace(/\/+$/, '');
  const asServed = (file: string) => readFileSync(file, 'utf8').replace(/(from\s*['"])@passwordlessdev\/passwordless-client(['"])/g, '$1./passwordless-client.mjs$2');
  const entry = browserModuleFile();
  const module = asServed(entry);
  const siblings = readdirSync(dirname(entry)).filter((name) => name.endsWith('.js') && name !== basename(entry));
  const client = readFileSync(publishedClientFile(), 'utf8');
  const router = Router();
  const serve = (body: string) => (_req: unknown, res: import('express').Response) => {
    res.setHeader('Content-Type', 'text/javascript; charset=utf-8');
    res.setHeader('Cache-Control', 'no-cache');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.send(body);
  };
  router.get(`${base}/passwordless.mjs`, serve(module));
  router.get(`${base}/passwordless-client.mjs`, serve(client));
  for (const name of siblings) router.get(`${base}/${name}`, serve(asServed(join(dirname(entry), name))));
  return router;
}
