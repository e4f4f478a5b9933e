import { createHmac } from 'node:crypto';

export interface ConsoleKeys {
  apiKey: string;
  apiSecret: string;
}

/**
 * The console app's public and secret key, derived from a console secret (consoleSecrets.ts), so
 * that every replica and every restart uses the same keys and no secret is stored for them: their
 * digests are stored as any key's. Two ids (last four characters) are never equal.
 *
 * Versions before this one derived them from the app's decoy key (`App.decoyKey`, stored in plain
 * text): `deriveConsoleKeys(appId, decoyKey)` still recognises such an app, so that its keys can be
 * deleted (ensureConsoleApp.ts). Nothing derives live keys from it any more.
 */
export function deriveConsoleKeys(appId: string, seed: Buffer): ConsoleKeys {
  const part = (label: string) => createHmac('sha256', seed).update(label).digest('hex').slice(0, 32);
  const apiKey = `${appId}:public:${part('console public key')}`;
  for (let round = 0; ; round++) {
    const apiSecret = `${appId}:secret:${part(`console secret key ${round}`)}`;
    if (apiSecret.slice(-4) !== apiKey.slice(-4)) return { apiKey, apiSecret };
  }
}

/** The secret express-session signs the console's cookie with, from a console secret. */
export function consoleCookieSecret(secret: Buffer): string {
  return createHmac('sha256', secret).update('console session cookie').digest('base64url');
}
