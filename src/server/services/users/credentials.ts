import { z } from 'zod';
import { ApiError } from '../../core/apiError';
import { ciObject, looseString } from '../../core/validation';
import type { HotPath } from '../../store';
import type { StoredCredential } from '../../store/hotPath';
import { SYSTEM } from '../events/eventTypes';
import type { EventLog } from '../events/eventLog';
import { descriptorOf } from '../../webauthn/descriptors';
import { base64UrlToBase64, normaliseCredentialId } from '../../webauthn/encoding';

const NO_AAGUID = '00000000-0000-0000-0000-000000000000';
const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const userIdSchema = ciObject({ userId: looseString().pipe(z.string().min(1, 'is required')) });
export const deleteCredentialSchema = ciObject({ credentialId: looseString().pipe(z.string().min(1, 'is required')) });

/** One element of `/credentials/list`: every field of the spec's table plus what the SDKs read. */
function credentialView(c: StoredCredential) {
  return {
    descriptor: descriptorOf(c.descriptorId, c.transports),
    publicKey: base64UrlToBase64(c.publicKey),
    userHandle: base64UrlToBase64(c.userHandle),
    signatureCounter: Number(c.signatureCounter),
    attestationFmt: c.attestationFmt,
    createdAt: new Date(c.createdAt).toISOString(),
    aaGuid: GUID.test(c.aaGuid) ? c.aaGuid.toLowerCase() : NO_AAGUID,
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
  };
}

export class CredentialService {
  constructor(
    private readonly hot: HotPath,
    private readonly events: EventLog,
  ) {}

  /** The user's passkeys, oldest first: one read of their rows by the (app, userId) index. */
  async list(appId: string, userId: string) {
    return (await this.hot.listCredentials(appId, userId)).map(credentialView);
  }

  /** Deleting an id the app does not have changes nothing and is not an error. */
  async delete(appId: string, credentialId: string): Promise<void> {
    const id = normaliseCredentialId(credentialId);
    if (!id) {
      throw new ApiError('validation_failed', { extras: { errors: { credentialId: ['The credentialId field must be base64url.'] } } });
    }
    const owner = await this.hot.findCredential(appId, id);
    if (!owner) return;
    // With the owner's row and, were it their last passkey, the app's user count, in one transaction.
    const deleted = await this.hot.deleteCredential(appId, id, owner.userId);
    if (deleted) this.events.record(appId, { type: 'ApiUserDeleteCredential', message: `The passkey ${id} was deleted.`, subject: owner.userId, performedBy: SYSTEM });
  }
}
