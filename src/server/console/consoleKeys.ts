import { createHmac } from 'node:crypto';

export interface ConsoleKeys {
  apiKey: string;
  apiSecret: string;
}

/**
 * The console app's public and secret key, derived from a secret the app already has (its decoy
 * key), so that every replica and every restart uses the same keys and no secret is stored for
 * them: their digests are stored as any key's. Two ids (last four characters) are never equal.
 */
export function deriveConsoleKeys(appId: string, seed: Buffer): ConsoleKeys {
  const part = (label: string) => createHmac('sha256', seed).update(label).digest('hex').slice(0, 32);
  const apiKey = `${appId}:public:${part('console public key')}`;
  for (let round = 0; ; round++) {
    const apiSecret = `${appId}:secret:${part(`console secret key ${round}`)}`;
    if (apiSecret.slice(-4) !== apiKey.slice(-4)) return { apiKey, apiSecret };
  }
}
