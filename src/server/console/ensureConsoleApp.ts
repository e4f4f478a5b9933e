import { ApiError } from '../core/apiError';
import type { Services } from '../services';
import { CONSOLE_APP_ID } from './consoleAppId';
import { PUBLIC_SCOPES, type Scope } from '../services/apps/apiKeys';
import { deriveConsoleKeys, type ConsoleKeys } from './consoleKeys';

/** What the middleware signing operators in calls with the secret: sign-ins, passkeys, recovery; nothing of the app's configuration. */
const MIDDLEWARE_SCOPES: Scope[] = ['token_register', 'token_verify', 'users', 'credentials', 'aliases', 'magic_links', 'token_generate'];

/** Who the console's own set-up is recorded as. */
export const CONSOLE_SYSTEM = 'console';

/** The console does not start, for a reason its message gives in one line (what was found, what to do). */
export class ConsoleRefusal extends Error {}

/**
 * Makes the console app ready, without touching its keys (the command line's `console invite`
 * runs it too, in a process that does not know the serving processes' secret): created on first
 * use (by the first invite, or the first request to the console), marked as the console's
 * (`reserved`), without keys, with event logging on, its pages' origin allowed, magic links and
 * generated tokens on (recovery by email needs both). An app of that id that the console did not
 * make is refused (ConsoleRefusal): see `claimConsoleApp`. Safe to run on every replica at once:
 * a lost creation race is the other replica's app.
 */
export async function ensureConsoleApp(services: Services, options: { origin: string; adminEmail?: string; serving?: boolean }): Promise<'ours' | 'legacy'> {
  if (await services.apps.isAvailable(CONSOLE_APP_ID)) {
    try {
      await services.apps.createReserved(CONSOLE_APP_ID, {
        adminEmail: options.adminEmail ?? services.config.mailFrom.address,
        plan: 'enterprise',
        eventLoggingIsEnabled: true,
        eventLoggingRetentionPeriod: 365,
        allowedOrigins: [options.origin],
      }, CONSOLE_SYSTEM);
    } catch (error) {
      if (!(error instanceof ApiError && error.code === 'app_already_exists')) throw error;
    }
  }
  const claim = await claimConsoleApp(services, { serving: options.serving ?? false });
  // Deleted between its creation and the claim: the next request makes it again.
  if (claim === 'absent') throw new Error(`the console's app '${CONSOLE_APP_ID}' was deleted while the console was being set up`);
  const features = await services.apps.getFeatures(CONSOLE_APP_ID);
  if (!features.allowedOrigins.includes(options.origin) || !features.isMagicLinksEnabled || !features.isGenerateSignInTokenEndpointEnabled || !features.eventLoggingIsEnabled) {
    await services.apps.setFeatures(CONSOLE_APP_ID, {
      allowedOrigins: [...new Set([...features.allowedOrigins, options.origin])],
      isMagicLinksEnabled: true,
      isGenerateSignInTokenEndpointEnabled: true,
      eventLoggingIsEnabled: true,
    }, CONSOLE_SYSTEM);
  }
  return claim;
}

/**
 * Whether `pwlconsole`, when it exists, is the console's: marked so (the console made it), or an
 * older version's console app, which derived its keys from the app's decoy key: it has keys, and
 * every one is such a key (their digests compared with the derivation's). A serving process
 * (`serving`) marks such an app now; the keys go when the console adopts its own
 * (`adoptConsoleKeys`), or with `retireLegacyConsoleKeys` when the console is off. Anything else
 * was made by someone else, through the management API or the command line before they refused the
 * id, and may hold keys and operators of theirs: refused, rather than its foreign keys deleted,
 * since deleting keys would leave the planted operators in place.
 */
export async function claimConsoleApp(services: Services, options: { serving: boolean }): Promise<'absent' | 'ours' | 'legacy'> {
  const reserved = await services.apps.reservedOf(CONSOLE_APP_ID);
  if (reserved === undefined) return 'absent';
  if (reserved) return 'ours';
  const legacy = deriveConsoleKeys(CONSOLE_APP_ID, await services.tokens.decoyKeyOf(CONSOLE_APP_ID));
  const keys = await services.apps.listKeys(CONSOLE_APP_ID);
  const foreign = await services.apps.keyIdsOtherThan(CONSOLE_APP_ID, [legacy.apiKey, legacy.apiSecret]);
  if (keys.length === 0 || foreign.length > 0) {
    const found = keys.length === 0 ? 'it has no keys' : `it has keys the console did not make (ids ${foreign.join(', ')})`;
    throw new ConsoleRefusal(
      `the operator console does not start: an app '${CONSOLE_APP_ID}' exists that the console did not make (${found}), so it may hold keys or operators someone planted. ` +
        `Check its users, then remove it with \`passwordless-selfhost console reset\` (its operators, passkeys and event log go with it) and invite the operators again`,
    );
  }
  if (options.serving) await services.apps.markReserved(CONSOLE_APP_ID);
  return 'legacy';
}

/**
 * The keys the console uses, and only them: those of each of its secrets (current first: the
 * current secret's keys are the ones it uses; a previous secret's keep working for replicas still
 * on it), stored as their digests; every other key of its app is deleted (an older version's keys,
 * derived from the database, or keys of a secret no longer configured). Serving processes only.
 */
export async function adoptConsoleKeys(services: Services, secrets: readonly Buffer[]): Promise<ConsoleKeys> {
  const wanted: { value: string; scopes: readonly Scope[] }[] = [];
  const ids = new Set<string>();
  for (const secret of secrets) {
    const keys = deriveConsoleKeys(CONSOLE_APP_ID, secret);
    for (const [value, scopes] of [[keys.apiKey, PUBLIC_SCOPES], [keys.apiSecret, MIDDLEWARE_SCOPES]] as const) {
      // Key ids are unique within an app: in the rare clash (one in 65 536) the newer secret's key keeps the id.
      if (ids.has(value.slice(-4))) continue;
      ids.add(value.slice(-4));
      wanted.push({ value, scopes });
    }
  }
  await deleteKeysOtherThan(services, wanted.map((key) => key.value));
  for (const key of wanted) await services.apps.adoptKey(CONSOLE_APP_ID, key.value, key.scopes);
  return deriveConsoleKeys(CONSOLE_APP_ID, secrets[0]);
}

/**
 * With the console off, an older version's console app would keep its keys, which anyone with a
 * copy of the database can derive: a serving process deletes them (and marks the app) at start.
 * A `pwlconsole` someone else made is only reported: the console refuses it when it is turned on.
 */
export async function retireLegacyConsoleKeys(services: Services): Promise<'absent' | 'ours' | 'legacy'> {
  const found = await claimConsoleApp(services, { serving: true });
  if (found === 'legacy') await deleteKeysOtherThan(services, []);
  return found;
}

async function deleteKeysOtherThan(services: Services, values: readonly string[]): Promise<void> {
  for (const id of await services.apps.keyIdsOtherThan(CONSOLE_APP_ID, values)) {
    try {
      await services.apps.deleteKey(CONSOLE_APP_ID, id, CONSOLE_SYSTEM);
    } catch (error) {
      // Another replica deleted it first.
      if (!(error instanceof ApiError && error.code === 'api_key_not_found')) throw error;
    }
  }
}
