import { TOKEN_PREFIXES } from '../shared/tokens';

/** Longer than any token the service issues: a bigger value is not a token, and costs no round trip. */
export const MAX_TOKEN_LENGTH = 4096;
const VERIFY_TOKEN = /^verify_[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/;

/** Whether `value` looks like a `verify_` token the service could have issued: checked before it costs a service call. */
export function isVerifyTokenShaped(value: unknown): value is string {
  return typeof value === 'string' && value.length <= MAX_TOKEN_LENGTH && value.startsWith(TOKEN_PREFIXES.verify) && VERIFY_TOKEN.test(value);
}
