import type { Request } from 'express';

/**
 * The web origin of a request as the host sees it: its scheme and Host header, as Express reads
 * them. Undefined without a Host header. A stranger chooses both: only the development fallback of
 * hostOrigins.ts reads it, once.
 */
export function requestOrigin(req: Request): string | undefined {
  const host = req.get('host');
  if (!host) return undefined;
  try {
    return new URL(`${req.protocol}://${host}`).origin;
  } catch {
    return undefined;
  }
}
