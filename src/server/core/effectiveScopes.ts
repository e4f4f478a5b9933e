import type { KeyKind } from '../../shared/apiKeys';
import { REFERENCE_SCOPES, scopesOf, type Scope } from './keyScopes';

/**
 * The scopes a key acts with, from the ones stored with it:
 * - none: every scope of its kind (no key is created so; an older tool's row might be);
 * - exactly the reference service's full set for its kind (`token_register` and `token_verify`,
 *   or `register` and `login`), in any order: every scope of its kind, so that a key made by the
 *   reference's tooling or console reaches every route it reaches there (where every private route
 *   but register/token, signin/verify and signin/generate-token takes any secret);
 * - anything else (a strict subset of the reference's, or any of our own scopes): exactly those.
 */
export function effectiveScopes(kind: KeyKind, stored: readonly string[]): readonly Scope[] {
  const own = new Set(stored);
  const reference: readonly Scope[] = REFERENCE_SCOPES[kind];
  if (own.size === 0 || (own.size === reference.length && reference.every((scope) => own.has(scope)))) return scopesOf(kind);
  return scopesOf(kind).filter((scope) => own.has(scope));
}
