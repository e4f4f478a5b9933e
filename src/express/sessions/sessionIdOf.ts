import type { Request } from 'express';

/** express-session's id of the request's session (typed here, so that hosts need no session types). */
export function sessionIdOf(req: Request): string | undefined {
  return (req as Request & { sessionID?: string }).sessionID;
}
