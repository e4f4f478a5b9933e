import { isUniqueViolation } from '../../core/storeErrors';
import type { Queries, NewRegistration, UserCapacity } from '../sql/queries';
import type { WebhookEvent, WebhookOutbox } from './webhookOutbox';

/** A verified passkey to store, with what it changes; its webhook deliveries are the repository's to add. */
export type PasskeyRegistration = Omit<NewRegistration, 'webhookDeliveries'>;

/**
 * How storing a registration ended: stored, or refused with nothing written, because its register
 * token was used before (`token_already_used`), the app reached its maxUsers (`max_users_reached`),
 * the app already has this passkey (`credential_exists`), or one of the aliases is taken
 * (`alias_taken`: by another user, or by a race with the same user's own alias write).
 */
export type RegistrationOutcome = { ok: true } | { ok: false; failure: 'token_already_used' | 'max_users_reached' | 'credential_exists' | 'alias_taken' };

/** What a `RegistrationRepository` is built from. */
export interface RegistrationRepositoryDeps {
  queries: Queries;
  outbox: WebhookOutbox;
}

/** New passkeys and what registering them may change (the user, their aliases, the app's user count), on the SQL layer. */
export class RegistrationRepository {
  private readonly queries: Queries;
  private readonly outbox: WebhookOutbox;

  constructor(deps: RegistrationRepositoryDeps) {
    this.queries = deps.queries;
    this.outbox = deps.outbox;
  }

  /** The app's kept user count, its maxUsers and whether the user has a passkey: one read. Undefined when the app is gone. */
  capacity(appId: string, userId: string): Promise<UserCapacity | undefined> {
    return this.queries.userCapacity(appId, userId);
  }

  /**
   * Stores a verified passkey in one unit with everything it changes (see `Queries.storeRegistration`)
   * and the deliveries of `report`; the worker is woken only once it is committed. A refused unique
   * key costs one more read, of the credential id, to tell a passkey registered twice from a taken alias.
   */
  async store(registration: PasskeyRegistration, report: WebhookEvent): Promise<RegistrationOutcome> {
    const appId = registration.tenant;
    let outcome;
    try {
      outcome = await this.outbox.reported(appId, report, (webhookDeliveries) => this.queries.storeRegistration({ ...registration, webhookDeliveries }), (stored) => stored.ok);
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      const exists = await this.queries.findCredential(appId, registration.credential.descriptorId);
      return { ok: false, failure: exists ? 'credential_exists' : 'alias_taken' };
    }
    if (!outcome.ok) return { ok: false, failure: outcome.failure === 'token_already_used' ? 'token_already_used' : 'max_users_reached' };
    return { ok: true };
  }
}
