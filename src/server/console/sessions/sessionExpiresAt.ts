/** The part of a stored session its expiry depends on: express-session's cookie (`expires` is a Date, or an ISO string once serialised). */
export interface ExpiringSession {
  cookie?: { expires?: Date | string | null } | null;
}

/**
 * When a session written (set or touched) at `now` expires: `idleMs` later, or at its cookie's
 * `expires` if that comes sooner (a cookie the browser drops is a session nobody can present).
 * An unreadable `expires` counts as none. Epoch ms.
 */
export function sessionExpiresAt(session: ExpiringSession, now: number, idleMs: number): number {
  const idle = now + idleMs;
  const expires = session.cookie?.expires;
  if (!expires) return idle;
  const at = new Date(expires).getTime();
  return Number.isFinite(at) ? Math.min(idle, at) : idle;
}
