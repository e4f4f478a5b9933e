import { z } from 'zod';
import { ApiError } from '../../core/apiError';
import { ciObject, looseString } from '../../core/validation';
import type { Db, HotPath } from '../../store';
import type { StoredCredential } from '../../store/hotPath';
import { SYSTEM } from '../events/eventTypes';
import type { EventLog } from '../events/eventLog';
import { descriptorOf } from '../../webauthn/descriptors';
import { base64UrlToBase64, normaliseCredentialId } from '../../webauthn/encoding';
import type { AuthenticatorNameOf } from '../metadata/authenticatorNames';
import { rowsOf, type WebhookOutbox } from '../webhooks/webhookOutbox';
import { passkeyName } from '../../core/passkeyName';

const NO_AAGUID = '00000000-0000-0000-0000-000000000000';
const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const userIdSchema = ciObject({ userId: looseString().pipe(z.string().min(1, 'is required')) });
export const deleteCredentialSchema = ciObject({ credentialId: looseString().pipe(z.string().min(1, 'is required')) });

/** `POST /credentials/update`: a passkey's new nickname (an extension: the reference cannot rename). */
export const updateCredentialSchema = ciObject({
  credentialId: looseString().pipe(z.string().min(1, 'is required')),
  nickname: looseString().pipe(passkeyName),
});

/** A credential id as the stores keep it (base64url), or a validation problem naming the field. */
function credentialIdOf(value: string): string {
  const id = normaliseCredentialId(value);
  if (!id) throw new ApiError('validation_failed', { extras: { errors: { credentialId: ['The credentialId field must be base64url.'] } } });
  return id;
}

/** One element of `/credentials/list`: every field of the spec's table plus what the SDKs read, and the authenticator's name when known. */
function credentialView(c: StoredCredential, nameOf: AuthenticatorNameOf) {
  const aaGuid = GUID.test(c.aaGuid) ? c.aaGuid.toLowerCase() : NO_AAGUID;
  return {
    descriptor: descriptorOf(c.descriptorId, c.transports),
    publicKey: base64UrlToBase64(c.publicKey),
    userHandle: base64UrlToBase64(c.userHandle),
    signatureCounter: Number(c.signatureCounter),
    attestationFmt: c.attestationFmt,
    createdAt: new Date(c.createdAt).toISOString(),
    aaGuid,
    lastUsedAt: new Date(c.lastUsedAt).toISOString(),
    rpid: c.rpid,
    origin: c.origin,
    country: c.country,
    device: c.device,
    nickname: c.nickname,
    userId: c.userId,
    backupState: c.backupState,
    isBackupEligible: c.backupEligible,
    isDiscoverable: c.isDiscoverable,
    authenticatorName: nameOf(aaGuid),
  };
}

/** What a `CredentialService` is built from. */
export interface CredentialServiceDeps {
  /** Renames only: the hot path has no statement for a write this rare. */
  db: Db;
  hot: HotPath;
  events: EventLog;
  authenticatorNames: () => Promise<AuthenticatorNameOf>;
  webhooks?: WebhookOutbox;
}

export class CredentialService {
  private readonly db: Db;
  private readonly hot: HotPath;
  private readonly events: EventLog;
  private readonly authenticatorNames: () => Promise<AuthenticatorNameOf>;
  private readonly webhooks?: WebhookOutbox;

  constructor(deps: CredentialServiceDeps) {
    this.db = deps.db;
    this.hot = deps.hot;
    this.events = deps.events;
    this.authenticatorNames = deps.authenticatorNames;
    this.webhooks = deps.webhooks;
  }

  /** The user's passkeys, oldest first: one read of their rows by the (app, userId) index. */
  async list(appId: string, userId: string) {
    const [rows, nameOf] = await Promise.all([this.hot.listCredentials(appId, userId), this.authenticatorNames()]);
    return rows.map((row) => credentialView(row, nameOf));
  }

  /** Renames one of the app's passkeys; an id it does not have is a 404. */
  async update(appId: string, input: z.output<typeof updateCredentialSchema>): Promise<void> {
    const id = credentialIdOf(input.credentialId);
    const owner = await this.hot.findCredential(appId, id);
    const where = { tenant: appId, descriptorId: id };
    const data = { nickname: input.nickname };
    const deliveries = owner && (await this.webhooks?.deliveriesFor(appId, 'passkey.renamed', { userId: owner.userId, credentialId: id, nickname: input.nickname }));
    const { count } = deliveries
      ? await this.db.$transaction(async (tx) => {
          const renamed = await tx.credential.updateMany({ where, data });
          if (renamed.count > 0) await tx.webhookDelivery.createMany({ data: rowsOf(deliveries) });
          return renamed;
        })
      : await this.db.credential.updateMany({ where, data });
    if (count === 0) throw new ApiError('credential_not_found', { detail: 'This app has no passkey with this credentialId.' });
    this.webhooks?.written(deliveries || undefined);
    this.events.record(appId, { type: 'ApiUserUpdateCredential', message: `The passkey ${id} was renamed.`, subject: owner?.userId ?? '', performedBy: SYSTEM });
  }

  /** Deleting an id the app does not have changes nothing and is not an error. */
  async delete(appId: string, credentialId: string): Promise<void> {
    const id = credentialIdOf(credentialId);
    const owner = await this.hot.findCredential(appId, id);
    if (!owner) return;
    // With the owner's row and, were it their last passkey, the app's user count, in one transaction.
    const deliveries = await this.webhooks?.deliveriesFor(appId, 'passkey.deleted', { userId: owner.userId, credentialId: id });
    const deleted = await this.hot.deleteCredential(appId, id, owner.userId, deliveries);
    if (deleted) this.webhooks?.written(deliveries);
    if (deleted) this.events.record(appId, { type: 'ApiUserDeleteCredential', message: `The passkey ${id} was deleted.`, subject: owner.userId, performedBy: SYSTEM });
  }
}
