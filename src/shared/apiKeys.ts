/** API keys: `<appId>:public:<32 hex>` (browser) and `<appId>:secret:<32 hex>` (backend). */
export type KeyKind = 'public' | 'secret';

/** 3..62 characters, lowercase letters and digits, starting with a letter. */
export const APP_ID_PATTERN = /^[a-z][a-z0-9]{2,61}$/;
const KEY_PATTERN = /^([a-z][a-z0-9]{2,61}):(public|secret):([0-9a-f]{32})$/;

export interface ParsedKey {
  appId: string;
  kind: KeyKind;
  /** The key's last four characters: its id within the app, not secret. */
  keyId: string;
}

/** The parts of a well-formed key, or undefined. */
export function parseKey(value: string): ParsedKey | undefined {
  const match = KEY_PATTERN.exec(value);
  if (!match) return undefined;
  return { appId: match[1], kind: match[2] as KeyKind, keyId: match[3].slice(-4) };
}
