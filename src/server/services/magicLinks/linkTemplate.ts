/** What `/magic-links/send` replaces with the token (exact case). */
export const TOKEN_PLACEHOLDER = '$TOKEN';

// Control characters, any space or line separator, and invisible formatting characters (zero
// widths, bidirectional overrides): `new URL()` drops tabs and newlines silently, and the others
// make a link read as something it is not, in the mail or in MAIL_FILE.
const HIDDEN_OR_BREAKING = /[\p{Cc}\p{Cf}\p{Z}]/u;

/**
 * Why `template` cannot be a magic link's template, or undefined. It must be an absolute http(s)
 * URL without credentials in it, with `$TOKEN` only in its path, query or fragment.
 */
export function linkTemplateProblem(template: string): string | undefined {
  if (!template.includes(TOKEN_PLACEHOLDER)) return 'must contain $TOKEN where the token goes, like so: https://www.example.com?token=$TOKEN';
  if (HIDDEN_OR_BREAKING.test(template)) return 'must not contain spaces, line breaks, control or invisible formatting characters';
  let url: URL;
  try {
    url = new URL(template);
  } catch {
    return 'must be an absolute http:// or https:// URL';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must be an absolute http:// or https:// URL';
  if (url.username !== '' || url.password !== '') return 'must not contain a user name or password';
  if (url.host.toLowerCase().includes(TOKEN_PLACEHOLDER.toLowerCase())) return 'may have $TOKEN only in the path, the query or the fragment';
  return undefined;
}

/**
 * The link to mail: the template as the URL parser reads it, serialised, with every `$TOKEN`
 * replaced by the URL-encoded token. So the mail says exactly the URL a browser will open. Only
 * for a template `linkTemplateProblem` accepts.
 */
export function fillLinkTemplate(template: string, token: string): string {
  return new URL(template).href.replaceAll(TOKEN_PLACEHOLDER, encodeURIComponent(token));
}
