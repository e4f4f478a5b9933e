import { ApiError } from '../core/apiError';
import type { Services } from '../services';
import { CONSOLE_APP_ID } from './consoleAppId';
import { PUBLIC_SCOPES, type Scope } from '../services/apps/apiKeys';
import { deriveConsoleKeys, type ConsoleKeys } from './consoleKeys';

/** What the middleware signing operators in calls with the secret: sign-ins, passkeys, recovery; nothing of the app's configuration. */
const MIDDLEWARE_SCOPES: Scope[] = ['token_register', 'token_verify', 'users', 'credentials', 'aliases', 'magic_links', 'token_generate'];

/** Who the console's own set-up is recorded as. */
export const CONSOLE_SYSTEM = 'console';

/**
 * Makes the console app ready and answers its keys: created on first use (by the first invite, or
 * the first request to the console), with event logging on, its pages' origin allowed, magic links
 * and generated tokens on (recovery by email needs both), and the derived keys in place of the
 * random ones it is created with. Safe to run on every replica at once: a lost creation race is
 * the other replica's app, and the keys are the same everywhere.
 */
export async function ensureConsoleApp(services: Services, options: { origin: string; adminEmail?: string }): Promise<ConsoleKeys> {
  if (await services.apps.isAvailable(CONSOLE_APP_ID)) {
    try {
      await services.apps.create(CONSOLE_APP_ID, {
        adminEmail: options.adminEmail ?? services.config.mailFrom.address,
        plan: 'enterprise',
        eventLoggingIsEnabled: true,
        eventLoggingRetentionPeriod: 365,
        allowedOrigins: [options.origin],
      }, CONSOLE_SYSTEM);
      // The keys an app is created with are random and shown once: the console uses none of them.
      for (const key of await services.apps.listKeys(CONSOLE_APP_ID)) await services.apps.deleteKey(CONSOLE_APP_ID, key.id, CONSOLE_SYSTEM);
    } catch (error) {
      if (!(error instanceof ApiError && error.code === 'app_already_exists')) throw error;
    }
  }
  const features = await services.apps.getFeatures(CONSOLE_APP_ID);
  if (!features.allowedOrigins.includes(options.origin) || !features.isMagicLinksEnabled || !features.isGenerateSignInTokenEndpointEnabled || !features.eventLoggingIsEnabled) {
    await services.apps.setFeatures(CONSOLE_APP_ID, {
      allowedOrigins: [...new Set([...features.allowedOrigins, options.origin])],
      isMagicLinksEnabled: true,
      isGenerateSignInTokenEndpointEnabled: true,
      eventLoggingIsEnabled: true,
    }, CONSOLE_SYSTEM);
  }
  const keys = deriveConsoleKeys(CONSOLE_APP_ID, await services.tokens.decoyKeyOf(CONSOLE_APP_ID));
  await services.apps.adoptKey(CONSOLE_APP_ID, keys.apiKey, PUBLIC_SCOPES);
  await services.apps.adoptKey(CONSOLE_APP_ID, keys.apiSecret, MIDDLEWARE_SCOPES);
  return keys;
}
