import { problemBody, type ProblemBody } from '../../shared/problem';
import { ERROR_CODES, statusesOf, type ErrorCode } from './errorCodes';

/** A failure the caller can act on; the HTTP layer turns it into application/problem+json. */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly detail?: string;
  readonly extras: Record<string, unknown>;
  readonly headers: Record<string, string>;
  /** What the service's log (never the answer) says of this refusal: values and a diagnosis, no secret. */
  readonly logged?: Record<string, unknown>;

  constructor(
    code: ErrorCode,
    options: { title?: string; detail?: string; extras?: Record<string, unknown>; headers?: Record<string, string>; status?: number; logged?: Record<string, unknown> } = {},
  ) {
    super(options.title ?? ERROR_CODES[code].title);
    this.code = code;
    if (options.status !== undefined && !statusesOf(code).includes(options.status)) throw new Error(`${code} is never answered with ${options.status}`);
    this.status = options.status ?? ERROR_CODES[code].status;
    this.detail = options.detail ?? (ERROR_CODES[code] as { detail?: string }).detail;
    this.extras = options.extras ?? {};
    this.headers = options.headers ?? {};
    if (options.logged) this.logged = options.logged;
  }

  toProblem(): ProblemBody {
    return problemBody(this.code, this.status, this.message, this.detail, this.extras);
  }
}

export function validationError(errors: Record<string, string[]>, detail?: string): ApiError {
  return new ApiError('validation_failed', { detail, extras: { errors } });
}
