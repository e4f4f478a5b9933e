import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';

/** Flags for a headless, offline-quiet Chromium. Playwright never downloads anything: we always pass executablePath. */
export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'];

/** True when running under CI (CI=true/1/yes; CI=false or 0 counts as not CI). */
export function isCi(): boolean {
  const value = process.env.CI;
  return value !== undefined && value !== '' && !/^(false|0|no)$/i.test(value);
}

function isExecutableFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function onPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir && isExecutableFile(join(dir, name))) return join(dir, name);
  }
  return undefined;
}

export type ChromiumLookup =
  | { found: true; executablePath: string }
  /** `misconfigured`: CHROMIUM_PATH names something that is not an executable file. */
  | { found: false; misconfigured: boolean; reason: string };

/** CHROMIUM_PATH if set, else `chromium` (or `chromium-browser`) on PATH (Debian: /usr/bin/chromium). */
export function findChromium(): ChromiumLookup {
  const explicit = process.env.CHROMIUM_PATH;
  if (explicit) {
    return isExecutableFile(explicit)
      ? { found: true, executablePath: explicit }
      : { found: false, misconfigured: true, reason: `CHROMIUM_PATH=${explicit} is not an executable file` };
  }
  const candidate = onPath('chromium') ?? onPath('chromium-browser');
  return candidate
    ? { found: true, executablePath: candidate }
    : { found: false, misconfigured: false, reason: 'no chromium executable: CHROMIUM_PATH is unset and neither chromium nor chromium-browser is on PATH' };
}

export function launchChromium(executablePath: string): Promise<Browser> {
  return chromium.launch({ executablePath, headless: true, args: CHROMIUM_ARGS, timeout: 30_000 });
}
