/**
 * Whose session this is, as the console's per-user index files it: the `passwordlessSession.userId`
 * the middleware records (src/express/sessions/noteSession.ts), or undefined for a session nobody
 * has signed in to (a sign-in under way) or one whose record is not a string id.
 */
export function sessionOwner(session: unknown): string | undefined {
  const record = (session as { passwordlessSession?: { userId?: unknown } } | null | undefined)?.passwordlessSession;
  const userId = record?.userId;
  return typeof userId === 'string' && userId.length > 0 ? userId : undefined;
}
