import { explainOriginRefusal } from '../../shared/explainOriginRefusal';

/** Longer received origins are cut: a log line stays short whatever a client puts in its clientDataJSON. */
const MAX_LOGGED_ORIGIN = 200;

/** The origin a response's clientDataJSON names, or null when it names none (or is not JSON). */
function clientDataOrigin(clientDataJSON: string): string | null {
  try {
    const origin = (JSON.parse(Buffer.from(clientDataJSON, 'base64url').toString('utf8')) as { origin?: unknown }).origin;
    return typeof origin === 'string' ? origin.slice(0, MAX_LOGGED_ORIGIN) : null;
  } catch {
    return null;
  }
}

/**
 * When SimpleWebAuthn refused a response for its origin or its RP ID: what the service's log says
 * of it (the ceremony's origin and RP ID, the origin the browser signed, the likely cause).
 * Undefined for any other failure. The answer keeps its short, stable detail.
 */
export function responseOriginRefusal(error: unknown, session: { origin: string; rpId: string }, clientDataJSON: string): Record<string, unknown> | undefined {
  const message = error instanceof Error ? error.message : '';
  const origin = /response origin/i.test(message);
  const rpIdHash = /RP ID hash/i.test(message);
  if (!origin && !rpIdHash) return undefined;
  const received = clientDataOrigin(clientDataJSON);
  const { cause, hint } = explainOriginRefusal({
    expected: [session.origin],
    received,
    rpId: session.rpId,
    rpIdHashMismatch: !origin,
    setting: 'the origin the ceremony began with',
  });
  return { refused: origin ? 'origin' : 'rp_id', expectedOrigins: [session.origin], receivedOrigin: received, rpId: session.rpId, cause, hint };
}
