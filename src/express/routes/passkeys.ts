import type { RequestHandler } from 'express';
import { z } from 'zod';
import { MAX_PASSKEY_NAME_LENGTH, passkeyNameProblem } from '../../shared/passkeyName';
import type { Credential } from '../apiTypes';
import { HostProblem } from '../errorCodes';
import { asyncHandler, parseBody, sendJson } from '../http';
import { signedInUser } from '../signedInUser';
import type { LocalUser } from '../userStore';
import type { RouteContext } from './context';

/** One of the signed-in user's passkeys, as the middleware shows it. */
export interface PasskeyView {
  /** The credential id, base64url (what the browser's Signal API takes). */
  id: string;
  /** The nickname given at registration or by a rename; empty when none. */
  name: string;
  /** Who made it (e.g. "iCloud Keychain", "YubiKey 5 Series"), from its AAGUID; null when unknown. */
  providerName: string | null;
  createdAt: string;
  lastUsedAt: string;
  /** Backed up to a sync provider (the backup state flag). */
  synced: boolean;
  /** The browser and OS it was registered from. */
  device: string;
  /** Supports the PRF extension (a key the page derives from it), as its registration reported; null when not reported. */
  prfEnabled: boolean | null;
}

function view(credential: Credential): PasskeyView {
  return {
    id: credential.descriptor.id,
    name: credential.nickname,
    providerName: credential.authenticatorName ?? null,
    createdAt: credential.createdAt,
    lastUsedAt: credential.lastUsedAt,
    synced: credential.backupState,
    device: credential.device,
    prfEnabled: credential.prfEnabled ?? null,
  };
}

const byLastUse = (a: PasskeyView, b: PasskeyView) => Date.parse(b.lastUsedAt) - Date.parse(a.lastUsedAt);

/** The user's passkeys, the last used first. */
async function passkeysOf<U extends LocalUser>(ctx: RouteContext<U>, userId: string): Promise<PasskeyView[]> {
  return (await ctx.client.listCredentials(userId)).map(view).sort(byLastUse);
}

/** Of the user's passkeys, the one with `id`: the service's rename and delete are app-wide, so ownership is checked here. */
async function ownPasskey<U extends LocalUser>(ctx: RouteContext<U>, userId: string, id: string): Promise<{ passkey: PasskeyView; count: number }> {
  const passkeys = await passkeysOf(ctx, userId);
  const passkey = passkeys.find((p) => p.id === id);
  if (!passkey) throw new HostProblem('unknown_passkey');
  return { passkey, count: passkeys.length };
}

const idField = z.string({ message: 'must be a string' }).min(1, 'is required').max(1400, 'must be at most 1400 characters');

const renameSchema = z.object({
  id: idField,
  name: z
    .string({ message: 'must be a string' })
    .trim()
    .min(1, `must be 1 to ${MAX_PASSKEY_NAME_LENGTH} characters`)
    .max(MAX_PASSKEY_NAME_LENGTH, `must be 1 to ${MAX_PASSKEY_NAME_LENGTH} characters`)
    .superRefine((name, check) => {
      const problem = passkeyNameProblem(name);
      if (problem) check.addIssue({ code: 'custom', message: problem });
    }),
});

const deleteSchema = z.object({ id: idField });

/**
 * `GET /passwordless-passkeys`: the signed-in user's passkeys (id, name, provider name, created,
 * last used, synced, device), the last used first, and what the browser's Signal API needs of the
 * user (its user handle and names).
 */
export function listPasskeysRoute<U extends LocalUser>(ctx: RouteContext<U>): RequestHandler {
  return asyncHandler(async (req, res) => {
    const { user, userId } = signedInUser<U>(req, ctx.userIdOf);
    const passkeys = await passkeysOf(ctx, userId);
    sendJson(res, 200, {
      user: { userId, userHandle: Buffer.from(userId, 'utf8').toString('base64url'), name: user.username || user.email, displayName: user.displayName || user.username },
      passkeys,
    });
  });
}

/**
 * `POST /passwordless-passkeys/rename {id, name}`: renames one of the signed-in user's passkeys (1
 * to 64 characters, none of them control or invisible formatting characters: the name reaches
 * pages, mails and webhook consumers).
 */
export function renamePasskeyRoute<U extends LocalUser>(ctx: RouteContext<U>): RequestHandler {
  return asyncHandler(async (req, res) => {
    const { userId } = signedInUser<U>(req, ctx.userIdOf);
    const input = parseBody(renameSchema, req.body);
    await ownPasskey(ctx, userId, input.id);
    await ctx.client.updateCredential({ credentialId: input.id, nickname: input.name });
    res.status(204).end();
  });
}

/**
 * `POST /passwordless-passkeys/delete {id}`: deletes one of the signed-in user's passkeys. Mounted
 * behind a step-up guard; the user's last passkey stays unless the host allows deleting it (a user
 * without a passkey could not sign in again except through recovery). The sessions it opened end
 * (with `sessionStore`, unless `endSessionsOnPasskeyDelete: false`), but this one. The host hears
 * of it (`onPasskeyDeleted`).
 */
export function deletePasskeyRoute<U extends LocalUser>(ctx: RouteContext<U>, allowLast: boolean): RequestHandler {
  return asyncHandler(async (req, res) => {
    const { user, userId } = signedInUser<U>(req, ctx.userIdOf);
    const input = parseBody(deleteSchema, req.body);
    const { passkey, count } = await ownPasskey(ctx, userId, input.id);
    if (count === 1 && !allowLast) throw new HostProblem('last_passkey');
    await ctx.client.deleteCredential(input.id);
    await ctx.sessions?.passkeyDeleted(userId, input.id, req);
    await ctx.hooks.passkeyDeleted({ user, userId, passkey: { id: passkey.id, name: passkey.name, device: passkey.device } });
    res.status(204).end();
  });
}
