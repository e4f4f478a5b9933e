import { ApiError } from '../../core/apiError';

/**
 * Whether `/register/begin` begins a conditional create: only when the request asks for one and
 * the register token says it is an upgrade token (a flag inside the token's MAC, which only the
 * app's backend can set). An ordinary token asking for one is refused, so that no request can
 * turn an ordinary registration into one that skips the user-present check.
 */
export function conditionalCreateAllowed(mediation: 'conditional' | undefined, upgradeToken: boolean): boolean {
  if (mediation !== 'conditional') return false;
  if (!upgradeToken) {
    throw new ApiError('conditional_create_not_allowed', {
      detail: "Only a registration token created with 'upgrade: true' (POST /register/token) may be begun as a conditional create.",
    });
  }
  return true;
}
