/** Why a request got no answer, for a report line: the error's code or name, never its message (it may hold an address with credentials). */
export function unansweredReason(error: unknown): string {
  const { code, name } = (error ?? {}) as { code?: unknown; name?: unknown };
  return typeof code === 'string' ? code : typeof name === 'string' ? name : 'no answer';
}
