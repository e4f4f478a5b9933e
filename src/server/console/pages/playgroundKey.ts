import { parseKey } from '../../../shared/apiKeys';
import { effectiveScopes } from '../../core/effectiveScopes';

/** What the playground needs to know of an app's key (as `AppsService.listKeys` lists it). */
export interface ListedKey {
  apiKey: string;
  kind: string;
  scopes: readonly string[];
  isLocked: boolean;
}

/**
 * The public key the playground's browser client uses: the oldest unlocked one that may register
 * and sign in (its effective scopes hold `register` and `login`). Public keys are stored in plain
 * text, so its value is there; none when the app has no such key.
 */
export function playgroundKeyOf(keys: readonly ListedKey[]): string | undefined {
  return keys.find(
    (key) =>
      key.kind === 'public' &&
      !key.isLocked &&
      parseKey(key.apiKey)?.kind === 'public' &&
      ['register', 'login'].every((scope) => (effectiveScopes('public', key.scopes) as readonly string[]).includes(scope)),
  )?.apiKey;
}
