import type { Response } from 'express';
import { ERROR_CODES, PROBLEM_TYPE_BASE, type ErrorCode } from './errorCodes';

export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  errorCode: string;
  detail?: string;
  errors?: Record<string, string[]>;
  [extra: string]: unknown;
}

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
    this.detail = options.detail;
    this.extras = options.extras ?? {};
    this.headers = options.headers ?? {};
  }

  toProblem(): ProblemBody {
    const body: ProblemBody = { type: PROBLEM_TYPE_BASE + this.code, title: this.message, status: this.status, errorCode: this.code };
    if (this.detail !== undefined) body.detail = this.detail;
    return { ...body, ...this.extras };
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
  res.setHeader('Content-Type', 'application/problem+json');
  res.setHeader('Content-Length', String(body.length));
  res.end(body);
}

export function sendApiError(res: Response, error: ApiError): void {
  sendProblem(res, error.toProblem(), error.headers);
}
