import type { Request } from 'express';

/**
 * The web origin of a request as the host sees it: its scheme and Host header, as Express reads
 * them (behind a proxy, `trust proxy` makes them the browser's). Undefined without a Host header.
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

/** The origins a token used on this request may have been minted on: the configured ones, else the request's own. */
export function expectedOriginsOf(configured: readonly string[] | undefined): (req: Request) => readonly string[] {
  if (configured) return () => configured;
  return (req) => {
    const own = requestOrigin(req);
    return own === undefined ? [] : [own];
  };
}
