import type { Response } from 'express';
import { PROBLEM_CONTENT_TYPE, problemBody, type ProblemBody } from '../../shared/problem';
import { ERROR_CODES, type ErrorCode } from './errorCodes';

export type { ProblemBody };

/** A failure the caller can act on; the HTTP layer turns it into application/problem+json. */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly detail?: string;
  readonly extras: Record<string, unknown>;
  readonly headers: Record<string, string>;

  constructor(
    code: ErrorCode,
    options: { title?: string; detail?: string; extras?: Record<string, unknown>; headers?: Record<string, string> } = {},
  ) {
    super(options.title ?? ERROR_CODES[code].title);
    this.code = code;
    this.status = ERROR_CODES[code].status;
    this.detail = options.detail ?? (ERROR_CODES[code] as { detail?: string }).detail;
    this.extras = options.extras ?? {};
    this.headers = options.headers ?? {};
  }

  toProblem(): ProblemBody {
    return problemBody(this.code, this.status, this.message, this.detail, this.extras);
  }
}

export function validationError(errors: Record<string, string[]>, detail?: string): ApiError {
  return new ApiError('validation_failed', { detail, extras: { errors } });
}

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

export function sendApiError(res: Response, error: ApiError): void {
  sendProblem(res, error.toProblem(), error.headers);
}
