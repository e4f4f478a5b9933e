import type { Response } from 'express';
import { PROBLEM_CONTENT_TYPE } from '../../shared/problem';
import type { ApiError } from '../core/apiError';

/**
 * A console refusal as a problem, with exactly the media type the API's problems have: Express's
 * `type()` and `send()` of a string add `; charset=utf-8`, so the body is sent as bytes.
 */
export function sendConsoleProblem(res: Response, problem: ApiError): void {
  const body = Buffer.from(JSON.stringify(problem.toProblem()));
  res.status(problem.status);
  res.setHeader('Content-Type', PROBLEM_CONTENT_TYPE);
  res.setHeader('Content-Length', String(body.length));
  res.end(body);
}
