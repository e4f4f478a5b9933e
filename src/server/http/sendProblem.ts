import type { Response } from 'express';
import { PROBLEM_CONTENT_TYPE, type ProblemBody } from '../../shared/problem';

/** Writes a problem with the exact media type the SDKs compare against (no charset parameter). */
export function sendProblem(res: Response, problem: ProblemBody, headers: Record<string, string> = {}): void {
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  const body = Buffer.from(JSON.stringify(problem));
  res.status(problem.status);
  res.locals.errorCode = problem.errorCode; // for the ceremony-outcome metric
  res.setHeader('Content-Type', PROBLEM_CONTENT_TYPE);
  res.setHeader('Content-Length', String(body.length));
  res.end(body);
}
