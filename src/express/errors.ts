import { problemBody, type ProblemBody } from '../shared/problem';

/**
 * The service answered with an error. `problem` is its problem-details body as sent (or, for an
 * answer that was not problem+json, one made from the status with errorCode `unexpected_response`).
 */
export class PasswordlessApiError extends Error {
  readonly status: number;
  readonly errorCode: string;
  readonly title: string;
  readonly detail: string | undefined;
  readonly problem: ProblemBody;

  constructor(problem: ProblemBody) {
    super(problem.detail ? `${problem.title} ${problem.detail}` : problem.title);
    this.name = 'PasswordlessApiError';
    this.problem = problem;
    this.status = problem.status;
    this.errorCode = problem.errorCode;
    this.title = problem.title;
    this.detail = problem.detail;
  }
}

/** The service could not be reached, or did not answer in time. Nothing is known about the outcome. */
export class PasswordlessUnreachableError extends Error {
  readonly errorCode: 'service_unreachable' | 'service_timeout';
  /** What a host answers its own caller with: 502, or 504 for a timeout. */
  readonly status: number;

  constructor(errorCode: 'service_unreachable' | 'service_timeout', message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PasswordlessUnreachableError';
    this.errorCode = errorCode;
    this.status = errorCode === 'service_timeout' ? 504 : 502;
  }

  toProblem(): ProblemBody {
    const title = this.errorCode === 'service_timeout' ? 'The passwordless service did not answer in time.' : 'The passwordless service could not be reached.';
    return problemBody(this.errorCode, this.status, title);
  }
}

/** Bad settings, found at start-up. The message names the setting and never contains a key. */
export class PasswordlessSettingsError extends Error {
  /** The setting as it was given: `Passwordless__ApiSecret`, or `apiSecret` for an option. */
  readonly key: string;

  constructor(key: string, message: string) {
    super(`${key} ${message}`);
    this.name = 'PasswordlessSettingsError';
    this.key = key;
  }
}

/**
 * The service's own 4xx problem about what was sent (a refused token, a bad field): the caller's
 * to fix. Not a 401, which means the service refused this site's ApiSecret, and not an answer
 * that was no problem at all (a wrong ApiUrl answering a 404 page).
 */
export function isServiceRefusal(error: unknown): error is PasswordlessApiError {
  return error instanceof PasswordlessApiError && error.status >= 400 && error.status < 500 && error.status !== 401 && error.errorCode !== 'unexpected_response';
}
