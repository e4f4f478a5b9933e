// One address and nothing else: no display name, no comments, no quoted local part, no list. A
// value a mail library could read as a name plus an address, or as several recipients, is refused
// before any library sees it. Letters and digits of any script are allowed (internationalised
// addresses); so is a domain of one label (`admin@localhost` on a self-hosted box).
const LOCAL = /^[\p{L}\p{N}!#$%&'*+/=?^_`{|}~-]+(?:\.[\p{L}\p{N}!#$%&'*+/=?^_`{|}~-]+)*$/u;
const LABEL = /^[\p{L}\p{N}](?:[\p{L}\p{N}-]{0,61}[\p{L}\p{N}])?$/u;

/** Whether `value` is a bare email address (`local@domain`), at most 254 characters. */
export function isBareEmailAddress(value: string): boolean {
  if (value.length > 254) return false;
  const at = value.lastIndexOf('@');
  if (at <= 0 || at > 64) return false;
  const local = value.slice(0, at);
  const domain = value.slice(at + 1);
  return LOCAL.test(local) && domain.length > 0 && domain.split('.').every((label) => LABEL.test(label));
}
