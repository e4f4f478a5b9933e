import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { z } from 'zod';
import { fieldErrors } from '../shared/fieldErrors';
import { PROBLEM_CONTENT_TYPE, type ProblemBody } from '../shared/problem';
import { HostProblem } from './errorCodes';
import { ERROR_CODE_LOCAL } from './telemetry/routeTelemetry';
import { PasswordlessApiError, PasswordlessUnreachableError, isServiceRefusal } from './errors';

/** Answers with a problem, exactly as the service does: problem+json without a charset, not cached. */
export function sendProblem(res: Response, problem: ProblemBody): void {
  const body = Buffer.from(JSON.stringify(problem));
  res.locals[ERROR_CODE_LOCAL] = problem.errorCode;
  res.status(problem.status);
  res.setHeader('Content-Type', PROBLEM_CONTENT_TYPE);
  res.setHeader('Content-Length', String(body.length));
  res.setHeader('Cache-Control', 'no-store');
  res.end(body);
}

/** JSON that may identify the user: never cached. */
export function sendJson(res: Response, status: number, value: unknown): void {
  res.setHeader('Cache-Control', 'no-store');
  res.status(status).json(value);
}

/**
 * The problem a route answers for an error. The service's own 4xx problems pass through with
 * their status; a 401 from the service means it refused this site's ApiSecret, which is the
 * site's fault and not the visitor's, so it becomes a 502 (and is logged).
 */
export function problemOf(error: unknown): { problem: ProblemBody; log: boolean } {
  if (error instanceof HostProblem) return { problem: error.problem, log: false };
  if (error instanceof PasswordlessApiError) {
    if (error.status === 401) return { problem: new HostProblem('service_misconfigured', 'Check Passwordless__ApiSecret and Passwordless__ApiUrl.').problem, log: true };
    if (isServiceRefusal(error)) return { problem: error.problem, log: false };
    return { problem: new HostProblem('service_error').problem, log: true };
  }
  if (error instanceof PasswordlessUnreachableError) return { problem: error.toProblem(), log: true };
  return { problem: new HostProblem('internal_error').problem, log: true };
}

/** Runs an async handler under Express 4 and 5 alike: a rejection reaches the error handler. */
export function asyncHandler(handler: (req: Request, res: Response) => Promise<void>): RequestHandler {
  return (req, res, next: NextFunction) => {
    handler(req, res).catch(next);
  };
}

/** Parses a body with `schema` or throws a 400 problem whose `errors` names every bad field. */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  const result = schema.safeParse(body ?? {}, { reportInput: true });
  if (result.success) return result.data;
  const errors = fieldErrors(result.error.issues);
  const first = Object.values(errors)[0][0];
  throw new HostProblem('validation_failed', first, { errors });
}

/** The part of express-session's `req.session` these routes use; typed here so hosts need no session types. */
export interface SessionLike {
  destroy(callback: (error: unknown) => void): void;
}

export function sessionOf(req: Request): SessionLike | undefined {
  return (req as Request & { session?: SessionLike }).session;
}
