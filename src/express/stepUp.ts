import type { Request, RequestHandler } from 'express';
import { HostProblem } from './errorCodes';
import { requireSessionValues, sessionValuesOf } from './sessionValues';

export interface StepUpOptions {
  /** The purpose the step-up token must carry (an authentication configuration at the service). Default `step-up`. */
  purpose?: string;
  /** How long a step-up counts, in seconds. Default 300. */
  maxAge?: number;
}

/** Notes that the signed-in user `userId` stepped up for `purpose` now, with the passkey `credentialId`. The session keeps its id. */
export function recordStepUp(req: Request, purpose: string, userId: string, credentialId: string, now = Date.now()): void {
  const session = requireSessionValues(req);
  session.passwordlessStepUps = { ...session.passwordlessStepUps, [purpose]: { userId, at: now, credentialId } };
}

/** Whether `userId` stepped up for `purpose` within the last `maxAgeSeconds`, in this session. */
export function steppedUp(req: Request, purpose: string, userId: string, maxAgeSeconds: number, now = Date.now()): boolean {
  const record = sessionValuesOf(req)?.passwordlessStepUps?.[purpose];
  return record !== undefined && record.userId === userId && now - record.at <= maxAgeSeconds * 1000 && record.at <= now;
}

/**
 * A guard for the host's sensitive routes: lets the request through only if the signed-in user
 * stepped up for `purpose` in this session within `maxAge` seconds; otherwise 401
 * `step_up_required`, naming the purpose, so the page can run the step-up and retry.
 */
export function stepUpGuard(userIdOf: (user: unknown) => string | undefined, now: () => number = Date.now): (options?: StepUpOptions) => RequestHandler {
  return ({ purpose = 'step-up', maxAge = 300 } = {}) => {
    if (!Number.isFinite(maxAge) || maxAge <= 0) throw new TypeError('requireStepUp({ maxAge }) takes a positive number of seconds.');
    return (req, _res, next) => {
      const userId = req.isAuthenticated?.() ? userIdOf(req.user) : undefined;
      if (userId === undefined) next(new HostProblem('not_signed_in'));
      else if (!steppedUp(req, purpose, userId, maxAge, now())) next(new HostProblem('step_up_required', `Confirm it is you with a passkey (purpose '${purpose}') first.`, { purpose }));
      else next();
    };
  };
}
