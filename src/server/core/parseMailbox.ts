import { isBareEmailAddress } from './isBareEmailAddress';

export interface Mailbox {
  /** The display name; '' when there is none. */
  name: string;
  address: string;
}

// A display name of ordinary characters: no control characters (so no header can be started),
// no quotes, angle brackets, backslashes, commas, semicolons or @ (so nothing reads as another
// address or a list).
const PLAIN_NAME = /^[^\p{Cc}\p{Zl}\p{Zp}"<>\\,;@]+$/u;
// The same inside double quotes, where commas, semicolons and @ are harmless.
const QUOTED_NAME = /^"([^\p{Cc}\p{Zl}\p{Zp}"\\]*)"$/u;

/**
 * A sender as MAIL_FROM gives it: a bare address (`noreply@example.com`) or the usual display-name
 * form (`Passkeys <noreply@example.com>`, `"Passkeys, Inc." <noreply@example.com>`). Undefined
 * for anything else.
 */
export function parseMailbox(value: string): Mailbox | undefined {
  const text = value.trim();
  if (isBareEmailAddress(text)) return { name: '', address: text };
  const match = /^(.*?)\s*<([^<>]*)>$/su.exec(text);
  if (!match || !isBareEmailAddress(match[2])) return undefined;
  const rawName = match[1].trim();
  if (rawName === '') return { name: '', address: match[2] };
  const quoted = QUOTED_NAME.exec(rawName);
  const name = quoted ? quoted[1].trim() : PLAIN_NAME.test(rawName) ? rawName.replace(/\s+/g, ' ') : undefined;
  return name === undefined ? undefined : { name, address: match[2] };
}
