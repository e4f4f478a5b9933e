import type { Request } from 'express';
import { PasswordlessSettingsError } from './errors';
import { requestOrigin } from './requestOrigin';

/**
 * Where the host's pages are: the origins a browser-made token must have been made on, and the
 * base every mailed link and `/.well-known` URL starts with. From configuration only: a request's
 * Host header is the visitor's to choose, so a link built from it sends a victim's token to
 * whoever forged it.
 */
export interface HostOrigins {
  origins(req: Request): readonly string[];
  /** Without a trailing slash. */
  linkBase(req: Request): string;
  /** Only for the development fallback: fixes the origin from the first request the host serves. */
  fixOnFirstRequest?: (req: Request) => void;
}

export interface HostOriginsInput {
  origins: readonly string[] | undefined;
  publicUrl: string | undefined;
  /** Mailed links (`verifyEmail`, `recovery`) are on, or the host runs in production: then the setting is required. */
  required: { because: string } | undefined;
  /** Hears of the development fallback, once. */
  warn(details: Record<string, unknown>, message: string): void;
}

/**
 * The configured origins, or, only in development without mailed links, the origin of the first
 * request, fixed then and logged with a warning: never read per request. Throws a
 * PasswordlessSettingsError naming `Passwordless__Origins` when the setting is required.
 */
export function hostOrigins({ origins, publicUrl, required, warn }: HostOriginsInput): HostOrigins {
  if (origins !== undefined && publicUrl !== undefined) return { origins: () => origins, linkBase: () => publicUrl };
  if (required) {
    throw new PasswordlessSettingsError(
      'Passwordless__Origins',
      `is required ${required.because}: the web origins of your pages, such as https://app.example.com (or set Passwordless__PublicUrl, the publicUrl option). Mailed links and sign-ins are bound to them; they are never taken from a request's Host header.`,
    );
  }
  let fixed: string | undefined;
  const fix = (req: Request): string => {
    if (fixed === undefined) {
      fixed = requestOrigin(req) ?? 'http://localhost';
      warn({ origin: fixed }, `passwordless: no Passwordless__Origins set, so this development host's origin is fixed at ${fixed}, from its first request. Production needs the setting.`);
    }
    return fixed;
  };
  return { origins: (req) => [fix(req)], linkBase: fix, fixOnFirstRequest: (req) => void fix(req) };
}
