import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { parseKey } from '../../../shared/apiKeys';
import type { ApiKeyAuthenticator, AuthenticatedKey, KeyCheck, Scope } from '../../services/apps/apiKeys';
import { configuredSecret } from '../../core/configuredSecret';
import { ApiError } from '../../core/apiError';
import { clientAddressKey, countAuthFailure, countAuthenticated } from './rateLimits';

export type KeyHeader = 'ApiSecret' | 'ApiKey';

/** Checks an ApiKey or ApiSecret value (the service's authenticator). */
export type KeyChecker = Pick<ApiKeyAuthenticator, 'check'>;

const OTHER: Record<KeyHeader, KeyHeader> = { ApiSecret: 'ApiKey', ApiKey: 'ApiSecret' };
const EXAMPLE: Record<KeyHeader, string> = { ApiSecret: '<appId>:secret:<32 hex characters>', ApiKey: '<appId>:public:<32 hex characters>' };

function headerValue(req: Request, name: string): string | undefined {
  const value = req.headers[name.toLowerCase()];
  const single = Array.isArray(value) ? value[0] : value;
  // An empty header is treated as no header, as the reference's tests expect.
  return single === undefined || single.trim() === '' ? undefined : single.trim();
}

function unauthorized(header: KeyHeader | 'ManagementKey', detail: string): ApiError {
  return new ApiError(header, { detail, headers: { 'WWW-Authenticate': header } });
}

/** Tells the caller what they sent wrong, without ever echoing the value itself. */
export function describeBadKey(header: KeyHeader, value: string | undefined, otherPresent: boolean): string {
  const other = OTHER[header];
  if (value === undefined) {
    return otherPresent ? `A '${other}' header was supplied when a '${header}' header should have been supplied.` : `A valid '${header}' header is required.`;
  }
  const lower = value.toLowerCase();
  if (lower.startsWith('verify_')) return `A verify token was supplied instead of your '${header}'.`;
  if (lower.startsWith('register_')) return `A register token was supplied instead of your '${header}'.`;
  if (lower.startsWith('session_')) return `A session token was supplied instead of your '${header}'.`;
  if (header === 'ApiSecret' && value.includes(':public:')) return `Your ApiSecret header contained a public ApiKey instead of your 'ApiSecret'.`;
  if (header === 'ApiKey' && value.includes(':secret:')) {
    return `Your ApiKey header contained an ApiSecret instead of your 'ApiKey'. Never send the secret from a browser; rotate it if it was exposed.`;
  }
  if (!parseKey(value)) return `We don't recognize the value you supplied for your '${header}'. It should look like '${EXAMPLE[header]}'.`;
  return `The value of your '${header}' is not valid.`;
}

export function authOf(res: Response): AuthenticatedKey {
  const auth = res.locals.auth as AuthenticatedKey | undefined;
  if (!auth) throw new Error('route is missing its authentication middleware');
  return auth;
}

const REFUSED: Record<Exclude<KeyCheck, { ok: true }>['reason'], (header: KeyHeader) => string> = {
  unknown: (header) => `The value of your '${header}' is not valid.`,
  invalid: (header) => `The value of your '${header}' is not valid.`,
  locked: (header) => `Your '${header}' is locked, or its app is frozen.`,
  deleting: (header) =>
    `The app of your '${header}' is being deleted: its keys are frozen and its data will be deleted. The link in the warning email sent to the app's admin cancels the deletion.`,
};

/** Counts a refused key: wrong secrets per address and claimed app; a public key is public, so nothing is guessed. */
const countFailure = (res: Response, header: KeyHeader) => (header === 'ApiSecret' ? countAuthFailure(res, 'ApiSecret') : Promise.resolve());

/**
 * Accepts only a valid, unlocked key of the kind the header names, with the route's scope among its
 * effective ones (`effectiveScopes`). Only then does the request spend its app's rate-limit budget.
 */
export function requireKey(authenticator: KeyChecker, header: KeyHeader, scope?: Scope): RequestHandler {
  const kind = header === 'ApiSecret' ? 'secret' : 'public';
  return async (req: Request, res: Response, next: NextFunction) => {
    const value = headerValue(req, header);
    const parsed = value === undefined ? undefined : parseKey(value);
    if (value === undefined || !parsed || parsed.kind !== kind) {
      await countFailure(res, header);
      throw unauthorized(header, describeBadKey(header, value, headerValue(req, OTHER[header]) !== undefined));
    }
    // The address (as Express sees it under TRUST_PROXY) is only read when the key fails, for its event.
    const check = await authenticator.check(value, () => clientAddressKey(req, true));
    if (!check.ok) {
      await countFailure(res, header);
      throw unauthorized(header, REFUSED[check.reason](header));
    }
    if (scope && !check.key.scopes.includes(scope)) {
      throw new ApiError('forbidden', {
        detail: `You are unable to access this resource because you do not have the required permissions. Required scopes: ${scope}`,
      });
    }
    // After the scope check: a key the route refuses cannot spend the app's budget of it (say, a
    // narrow key exhausting webhooks/test for the backend that holds the webhooks scope).
    countAuthenticated(res, check.key.appId);
    res.locals.auth = check.key;
    next();
  };
}

/**
 * The management API: a constant-time comparison against MANAGEMENT_KEY; unset refuses everything.
 * A wrong key counts against its address's failure limit (over it, the address is refused before
 * the key is compared).
 */
export function requireManagementKey(managementKey: string | undefined): RequestHandler {
  const matches = configuredSecret(managementKey);
  return async (req, res, next) => {
    if (matches === undefined) {
      throw unauthorized('ManagementKey', 'The management API is disabled on this server: set MANAGEMENT_KEY to enable it.');
    }
    const value = headerValue(req, 'ManagementKey');
    if (value === undefined) throw unauthorized('ManagementKey', "A valid 'ManagementKey' header is required.");
    if (!matches(value)) {
      await countAuthFailure(res, 'ManagementKey');
      throw unauthorized('ManagementKey', "The value of your 'ManagementKey' is not valid.");
    }
    next();
  };
}
