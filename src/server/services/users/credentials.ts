import { z } from 'zod';
import { ApiError } from '../../core/apiError';
import { ciObject, looseString } from '../../core/validation';
import type { CredentialRepository, StoredCredential } from '../../store/repositories';
import { SYSTEM } from '../events/eventTypes';
import type { EventLog } from '../events/eventLog';
import { descriptorOf } from '../../webauthn/descriptors';
import { base64UrlToBase64, normaliseCredentialId } from '../../webauthn/encoding';
import type { AuthenticatorNameOf } from '../metadata/authenticatorNames';
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
    prfEnabled: c.prfEnabled,
    authenticatorName: nameOf(aaGuid),
    /** Ours (issue 35): made by the automatic upgrade after a password sign-in (a conditional create). */
    upgrade: c.madeByUpgrade,
  };
}

/** What a `CredentialService` is built from. */
export interface CredentialServiceDeps {
  credentials: CredentialRepository;
  events: EventLog;
  authenticatorNames: () => Promise<AuthenticatorNameOf>;
}

export class CredentialService {
  private readonly credentials: CredentialRepository;
  private readonly events: EventLog;
  private readonly authenticatorNames: () => Promise<AuthenticatorNameOf>;

  constructor(deps: CredentialServiceDeps) {
    this.credentials = deps.credentials;
    this.events = deps.events;
    this.authenticatorNames = deps.authenticatorNames;
  }

  /** The user's passkeys, oldest first: one read of their rows by the (app, userId) index. */
  async list(appId: string, userId: string) {
    const [rows, nameOf] = await Promise.all([this.credentials.list(appId, userId), this.authenticatorNames()]);
    return rows.map((row) => credentialView(row, nameOf));
  }

  /** Renames one of the app's passkeys; an id it does not have is a 404. */
  async update(appId: string, input: z.output<typeof updateCredentialSchema>): Promise<void> {
    const id = credentialIdOf(input.credentialId);
    const owner = await this.credentials.find(appId, id);
    const renamed = owner !== undefined && (await this.credentials.rename(appId, id, input.nickname, { type: 'passkey.renamed', data: { userId: owner.userId, credentialId: id, nickname: input.nickname } }));
    if (!renamed) throw new ApiError('credential_not_found', { detail: 'This app has no passkey with this credentialId.' });
    this.events.record(appId, { type: 'ApiUserUpdateCredential', message: `The passkey ${id} was renamed.`, subject: owner.userId, performedBy: SYSTEM });
  }

  /**
   * Deleting an id the app does not have changes nothing and is not an error. `by`: who, for the
   * event log (default: the reference's `System`).
   */
  async delete(appId: string, credentialId: string, by?: string): Promise<void> {
    const id = credentialIdOf(credentialId);
    const owner = await this.credentials.find(appId, id);
    if (!owner) return;
    const deleted = await this.credentials.delete(appId, id, owner.userId, { type: 'passkey.deleted', data: { userId: owner.userId, credentialId: id } });
    if (deleted) this.events.record(appId, { type: 'ApiUserDeleteCredential', message: `The passkey ${id} was deleted.`, subject: owner.userId, performedBy: by ?? SYSTEM });
  }
}
