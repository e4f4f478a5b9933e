import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { chromium, type Browser, type CDPSession } from 'playwright-core';

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

/**
 * `describe` for a browser suite. Outside CI a missing browser skips the suite, loudly; in CI, or
 * with a broken CHROMIUM_PATH, the suite runs and fails in its setup (see `requireChromium`).
 */
export function browserSuite(what: string): jest.Describe {
  const lookup = findChromium();
  if (!lookup.found && !lookup.misconfigured && !isCi()) {
    process.stderr.write(`\n*** ${lookup.reason}: the BROWSER ${what} tests are SKIPPED. Install Chromium or set CHROMIUM_PATH (under CI=true this is a failure, not a skip). ***\n\n`);
    return describe.skip;
  }
  return describe;
}

/** The Chromium to launch, or an error saying why there is none. */
export function requireChromium(): string {
  const lookup = findChromium();
  if (!lookup.found) throw new Error(`Browser end-to-end tests cannot run: ${lookup.reason}. Install Chromium or set CHROMIUM_PATH.`);
  return lookup.executablePath;
}

/** A platform passkey provider that says yes at once (user present and verified). Returns its id. */
export async function addVirtualAuthenticator(cdp: CDPSession): Promise<string> {
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
  });
  return authenticatorId;
}
