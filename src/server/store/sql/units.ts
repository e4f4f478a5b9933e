import { activeSpanContext } from '../../core/telemetry/tracing';
import { formatTraceparent } from '../../core/telemetry/traceparent';
import type { NewAlias, NewEvent, NewRegistration, NewWebhookDelivery } from './queries';
import type { SqlCodec } from './codec';
import type { WriteStatement } from './statements';
import type { StepCondition, UnitStep } from './unit';

// The writes that change users, each one unit (one transaction). Every unit locks the user's row
// first (its insert or update), then changes the app's count, so that concurrent units for one
// user take turns and always take their locks in the same order.

const step = (statement: WriteStatement, params: Record<string, unknown>, more: Omit<UnitStep, 'statement' | 'params'> = {}): UnitStep => ({ statement, params, ...more });

function aliasSteps(tenant: string, userId: string, aliases: NewAlias[]): UnitStep[] {
  return [
    step('deleteUserAliases', { tenant, userId }),
    ...aliases.map((alias) => step('insertAlias', { tenant, userId, aliasHash: alias.aliasHash, plaintext: alias.plaintext })),
  ];
}

/**
 * A registration: the user's row (their passkey count up), their aliases when replaced, the app's
 * user count when this is the user's first passkey, the register token it redeems, and the passkey.
 * Further writes that must commit with the passkey (say, an outbox row) are further steps here.
 */
export function registrationSteps({ tenant, credential: c, aliases, redeemedToken, webhookDeliveries }: NewRegistration, encoding: SqlCodec): UnitStep[] {
  const { userId } = c;
  return [
    // First, so that a token's second registration fails before it locks anything else.
    ...(redeemedToken === undefined
      ? []
      : [step('redeemToken', { tenant, tokenId: redeemedToken.tokenId, expiresAt: encoding.time(redeemedToken.expiresAt) }, { orFail: 'token_already_used' })]),
    aliases === undefined
      ? step('addUserCredential', { tenant, userId }, { as: 'user' })
      : step('addUserCredentialWithAliases', { tenant, userId, aliasCount: aliases.length }, { as: 'user' }),
    ...(aliases === undefined ? [] : aliasSteps(tenant, userId, aliases)),
    // The check against maxUsers and the count are one statement on the app's row, so that
    // concurrent registrations of new users can neither pass the limit nor be refused below it.
    step('countNewUser', { tenant }, { onlyIf: { step: 'user', column: 'credentialsCount', equals: 1 }, orFail: 'max_users_reached' }),
    step('insertCredential', {
      tenant,
      descriptorId: c.descriptorId,
      userId,
      userHandle: c.userHandle,
      publicKey: c.publicKey,
      signatureCounter: c.signatureCounter,
      attestationFmt: c.attestationFmt,
      aaGuid: c.aaGuid,
      transports: c.transports,
      rpid: c.rpid,
      origin: c.origin,
      country: c.country,
      device: c.device,
      nickname: c.nickname,
      backupEligible: encoding.bool(c.backupEligible),
      backupState: encoding.bool(c.backupState),
      isDiscoverable: c.isDiscoverable === null ? null : encoding.bool(c.isDiscoverable),
      uvInitialized: encoding.bool(c.uvInitialized),
      createdAt: encoding.time(c.createdAt),
      lastUsedAt: encoding.time(c.lastUsedAt),
      lastUsedDay: c.lastUsedDay,
      prfSalt: c.prfSalt,
      prfEnabled: c.prfEnabled === null ? null : encoding.bool(c.prfEnabled),
      madeByUpgrade: encoding.bool(c.madeByUpgrade),
    }),
    ...webhookDeliverySteps(webhookDeliveries, encoding),
  ];
}

/** One passkey fewer; `not_found` when it was not there (nothing changes then). */
export function credentialDeletionSteps(tenant: string, descriptorId: string, userId: string): UnitStep[] {
  return [
    step('removeUserCredential', { tenant, userId }, { as: 'user' }),
    step('deleteCredential', { tenant, descriptorId, userId }, { orFail: 'not_found' }),
    step('uncountUser', { tenant }, { onlyIf: { step: 'user', column: 'credentialsCount', equals: 0 } }),
    step('deleteEmptyUser', { tenant, userId }),
  ];
}

/** The user and everything of theirs. */
export function userDeletionSteps(tenant: string, userId: string): UnitStep[] {
  return [
    step('deleteUser', { tenant, userId }, { as: 'user' }),
    step('deleteUserCredentials', { tenant, userId }),
    step('deleteUserAliases', { tenant, userId }),
    step('uncountUser', { tenant }, { onlyIf: { step: 'user', column: 'credentialsCount', above: 0 } }),
  ];
}

/** The user's alias set replaced; a user left with neither passkeys nor aliases is gone. */
export function aliasReplacementSteps(tenant: string, userId: string, aliases: NewAlias[]): UnitStep[] {
  return [step('setUserAliasCount', { tenant, userId, aliasCount: aliases.length }), ...aliasSteps(tenant, userId, aliases), step('deleteEmptyUser', { tenant, userId })];
}

/** A batch of the event log: the events in one statement, and each app's count of them. */
export function eventWritingSteps(events: NewEvent[], encoding: SqlCodec): UnitStep[] {
  const perApp = new Map<string, number>();
  for (const event of events) perApp.set(event.tenant, (perApp.get(event.tenant) ?? 0) + 1);
  return [
    step('insertEvents', { events: JSON.stringify(events.map((event) => ({ ...event, performedAt: encoding.time(event.performedAt) }))) }),
    // In the order of their app ids, so that two batches (two replicas) lock counter rows in the same order.
    ...[...perApp].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([tenant, count]) => step('countEvents', { tenant, count })),
  ];
}

/**
 * The outbox rows of a change, as the last step of its unit: none at all (not even an empty
 * statement) when the app has no endpoint subscribed to what changed.
 */
export function webhookDeliverySteps(deliveries: NewWebhookDelivery[], encoding: SqlCodec, onlyIf?: StepCondition): UnitStep[] {
  return deliveries.length === 0 ? [] : [webhookDeliveryStep(deliveries, encoding, onlyIf)];
}

/** The outbox rows of a change as one statement (from one JSON array, however many). */
export function webhookDeliveryStep(deliveries: NewWebhookDelivery[], encoding: SqlCodec, onlyIf?: StepCondition): UnitStep {
  // The span that queues them, for the delivery's span to link to: only when tracing is on.
  const queuedIn = activeSpanContext();
  const traceContext = queuedIn ? formatTraceparent(queuedIn) : undefined;
  const rows = deliveries.map(({ nextAttemptAt, ...d }) => ({
    ...d,
    createdAt: encoding.time(d.createdAt),
    ...(nextAttemptAt === undefined ? {} : { nextAttemptAt: encoding.time(nextAttemptAt) }),
    ...(traceContext === undefined || d.traceContext !== undefined ? {} : { traceContext }),
  }));
  return step('insertWebhookDeliveries', { deliveries: JSON.stringify(rows) }, onlyIf ? { onlyIf } : {});
}

/** The user's row was there to delete (`userDeletionSteps` keeps it as `user`): only then is there a deletion to report. */
export const USER_EXISTED: StepCondition = { step: 'user', column: 'credentialsCount', above: -1 };
