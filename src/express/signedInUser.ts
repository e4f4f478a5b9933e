import type { Request } from 'express';
import { HostProblem } from './errorCodes';

/** The signed-in user and their service userId, or a 401 `not_signed_in` problem. */
export function signedInUser<U>(req: Request, userIdOf: (user: unknown) => string | undefined): { user: U; userId: string } {
  const user = req.isAuthenticated?.() ? (req.user as U | undefined) : undefined;
  const userId = user === undefined ? undefined : userIdOf(user);
  if (user === undefined || userId === undefined) throw new HostProblem('not_signed_in');
  return { user, userId };
}
