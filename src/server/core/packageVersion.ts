import { readFileSync } from 'node:fs';
import { join } from 'node:path';

let cached: string | undefined;

/** The service's own version, from package.json (beside `src/` and `dist/` alike); read once. */
export function packageVersion(): string {
  if (cached === undefined) {
    try {
      cached = (JSON.parse(readFileSync(join(__dirname, '..', '..', '..', 'package.json'), 'utf8')) as { version: string }).version;
    } catch {
      cached = '0.0.0';
    }
  }
  return cached;
}
