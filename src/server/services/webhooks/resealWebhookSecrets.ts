import type { WebhookEndpointRepository } from '../../store/repositories';
import type { TokenKeyEncryption } from '../tokens/tokenKeyWrapping';
import { openWebhookSecret, sealWebhookSecret } from './webhookSecretSealing';
import { sealingKeyIdOf } from '../../core/keyEncryptionKeySealing';

export interface ResealReport {
  /** Secrets now sealed with the current key-encryption key (they were plain, or sealed with a previous one). */
  rewrapped: number;
  /** Secrets already sealed with the current key. */
  unchanged: number;
  /** Previous secrets past their day: nothing signs with them any more, so they are dropped rather than resealed. */
  cleared: number;
  /** Secrets no configured key opens, left as they are: `<app>/<endpointId>`, with `/previous` for the one before a rotation. */
  unreadable: string[];
}

/** A rotation of the endpoint's secret racing this one: read it again, a few times at most. */
const MAX_TRIES = 3;

/**
 * `token-keys rewrap`, for webhook endpoints: each endpoint's secret and previous secret sealed
 * with the current TOKEN_KEY_ENCRYPTION_KEY, so the previous key-encryption key is no longer
 * needed. An endpoint is replaced only if it is still what was read (a secret rotation in between
 * copies the old stored secret into previousSecret, so the endpoint is read and done again).
 */
export async function resealWebhookSecrets(endpoints: WebhookEndpointRepository, encryption: TokenKeyEncryption, now = Date.now()): Promise<ResealReport> {
  const current = encryption.current;
  if (!current) throw new Error('TOKEN_KEY_ENCRYPTION_KEY is not set: there is nothing to seal the webhook secrets with');
  const report: ResealReport = { rewrapped: 0, unchanged: 0, cleared: 0, unreadable: [] };
  for (const { tenant, id } of await endpoints.everyEndpoint()) {
    for (let tries = 1; ; tries++) {
      const row = await endpoints.secretsOf(tenant, id);
      if (!row) break; // deleted meanwhile
      const outcome: ResealReport = { rewrapped: 0, unchanged: 0, cleared: 0, unreadable: [] };
      const reseal = (stored: string, name: string): string => {
        if (sealingKeyIdOf(stored) === current.id) {
          outcome.unchanged += 1;
          return stored;
        }
        const secret = openWebhookSecret(stored, encryption, tenant, id);
        if (secret === undefined) {
          outcome.unreadable.push(name);
          return stored;
        }
        outcome.rewrapped += 1;
        return sealWebhookSecret(secret, encryption, tenant, id);
      };
      const secret = reseal(row.secret, `${tenant}/${id}`);
      const previousLive = row.previousSecret !== null && row.previousSecretExpiresAt !== null && row.previousSecretExpiresAt.getTime() > now;
      if (row.previousSecret !== null && !previousLive) outcome.cleared += 1;
      const previousSecret = previousLive ? reseal(row.previousSecret!, `${tenant}/${id}/previous`) : null;
      const changed = secret !== row.secret || previousSecret !== row.previousSecret;
      if (!changed || (await endpoints.replaceSecrets(tenant, id, row, secret, previousSecret))) {
        report.rewrapped += outcome.rewrapped;
        report.unchanged += outcome.unchanged;
        report.cleared += outcome.cleared;
        report.unreadable.push(...outcome.unreadable);
        break;
      }
      if (tries === MAX_TRIES) throw new Error(`the webhook endpoint ${tenant}/${id} kept changing while its secrets were resealed: run token-keys rewrap again`);
    }
  }
  return report;
}
