import { createHmac } from 'node:crypto';

/**
 * What the session list calls a session: an HMAC of its session id, keyed by the site's ApiSecret.
 * The session id itself is what the cookie carries: listed, a copy of the page (or of its answer)
 * would be a sign-in. The handle names the session to end and nothing more: it is no cookie, the
 * session id cannot be worked back from it, and every process of the site computes the same one.
 */
export function sessionHandles(secret: string): (sid: string) => string {
  const key = createHmac('sha256', secret).update('passwordless-session-handle').digest();
  return (sid) => createHmac('sha256', key).update(sid).digest('base64url');
}
