import { problemBody, type ProblemBody } from '../shared/problem';

/**
 * The middleware's own error codes (the service's problems pass through with theirs). One
 * dictionary, like the service's, so every problem these routes write takes its status and title here.
 */
const HOST_ERRORS = {
  validation_failed: { status: 400, title: 'One or more validation errors occurred.' },
  missing_token: { status: 400, title: 'This operation requires a token to be passed.' },
  invalid_link: { status: 400, title: 'This link is not valid, or it has expired.' },
  invalid_token: { status: 400, title: "The token is not a sign-in result: it should start with 'verify_'." },
  not_signed_in: { status: 401, title: 'You must be signed in to do this.' },
  step_up_required: { status: 401, title: 'Confirm it is you with a passkey first.' },
  fresh_sign_in_required: { status: 401, title: 'Sign in again first: this needs a fresh proof that it is you.' },
  unknown_user: { status: 401, title: 'The passkey is valid, but it belongs to no user of this site.' },
  token_not_accepted: { status: 401, title: 'This token cannot be used to sign in here.' },
  sign_in_failed: { status: 401, title: 'The sign-in could not be completed.' },
  cross_site_request: { status: 403, title: 'Cross-site requests are not accepted here.' },
  passkey_too_new: { status: 403, title: 'This passkey is too new to confirm it is you.' },
  upgrade_not_offered: { status: 403, title: 'A passkey upgrade is offered only right after a password sign-in.' },
  challenge_failed: { status: 403, title: 'The sign-up challenge was not passed.' },
  user_exists: { status: 409, title: 'A user with this email address already exists.' },
  last_passkey: { status: 409, title: 'This is your last passkey: add another one before you delete it.' },
  unknown_passkey: { status: 404, title: 'You have no passkey with this id.' },
  unknown_session: { status: 404, title: 'You have no session with this id.' },
  rate_limited: { status: 429, title: 'Too many requests. Try again later.' },
  mail_quota_reached: { status: 429, title: 'This site cannot send more sign-up mails right now. Try again later.' },
  payload_too_large: { status: 413, title: 'The request body is too large.' },
  unsupported_media_type: { status: 415, title: 'The request body must be JSON (Content-Type: application/json).' },
  internal_error: { status: 500, title: 'The request could not be completed.' },
  service_misconfigured: { status: 502, title: 'The passwordless service refused the credentials this site uses.' },
  service_error: { status: 502, title: 'The passwordless service failed.' },
} as const satisfies Record<string, { status: number; title: string }>;

export type HostErrorCode = keyof typeof HOST_ERRORS;

/** A failure in one of the middleware's routes, answered as a problem with its code's status. */
export class HostProblem extends Error {
  readonly problem: ProblemBody;

  constructor(code: HostErrorCode, detail?: string, extras?: Record<string, unknown>);
  /** A problem to answer as it is, e.g. the service's own passed through. */
  constructor(problem: ProblemBody);
  constructor(codeOrProblem: HostErrorCode | ProblemBody, detail?: string, extras?: Record<string, unknown>) {
    const problem =
      typeof codeOrProblem === 'string' ? problemBody(codeOrProblem, HOST_ERRORS[codeOrProblem].status, HOST_ERRORS[codeOrProblem].title, detail, extras) : codeOrProblem;
    super(problem.title);
    this.name = 'HostProblem';
    this.problem = problem;
  }
}
