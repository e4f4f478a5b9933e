import { readFileSync, readdirSync } from 'node:fs';
import { extname, join } from 'node:path';
import { Router, type Response } from 'express';

const TYPES: Record<string, string> = { '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8' };

/**
 * The console's scripts and style sheet (`assets/`), read once and served at `<base>/assets/<name>`:
 * files of this origin, which is all the CSP lets a page load. The scripts only add to pages that
 * work as plain forms (passkeys need a script anyway).
 */
export function consoleAssets(base: string): Router {
  const dir = join(__dirname, 'assets');
  const router = Router();
  for (const name of readdirSync(dir).filter((file) => TYPES[extname(file)] !== undefined)) {
    const body = readFileSync(join(dir, name), 'utf8');
    router.get(`${base}/assets/${name}`, (_req: unknown, res: Response) => {
      res.setHeader('Content-Type', TYPES[extname(name)]);
      res.setHeader('Cache-Control', 'no-cache');
      res.send(body);
    });
  }
  return router;
}
