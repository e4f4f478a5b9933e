import { createHash } from 'node:crypto';
import type { Store } from 'express-rate-limit';
import type { Credential } from './apiTypes';
import type { PasswordlessClient } from './client';
import type { PasskeyAddedEvent, PasskeyHooks } from './passkeyHooks';
import type { HostLogger } from './routes/context';
import type { LocalUser } from './userStore';
import { windowCounter } from './windowCounter';

/**
 * When the middleware looks for a watched token's passkey at the service, after the token expires:
 * first a moment after (a passkey made in time is there), then once more when no ceremony begun in
 * time can still complete (the service's ceremony session lives 1.5 × CEREMONY_TIMEOUT_SECONDS, 90 s
 * by default; this covers up to 600 s, and the two clocks' skew).
 */
export const FIRST_LOOK_AFTER_EXPIRY_MS = 2_000;
export const LAST_LOOK_AFTER_EXPIRY_MS = 15 * 60_000;
/** How long an announced passkey is remembered as announced: far longer than any look for it. */
const ANNOUNCED_FOR_MS = 24 * 3600_000;

export interface NewPasskeys<U extends LocalUser> {
  /**
   * A registration token for another passkey of `userId` was just made, while the user had the
   * passkeys `known`: whatever passkey it makes is announced, whether or not a browser reports it.
   */
  watch(userId: string, known: readonly string[], tokenExpiresAt: number): void;
  /** Tells the host of `event`'s passkey (`onPasskeyAdded`) unless it was told already; resolves true if it was told now. */
  announce(event: PasskeyAddedEvent<U>): Promise<boolean>;
}

export interface NewPasskeyNeeds<U extends LocalUser> {
  client: Pick<PasswordlessClient, 'listCredentials'>;
  findUser(userId: string): Promise<U | null | undefined>;
  hooks: Pick<PasskeyHooks<U>, 'passkeyAdded'>;
  logger: HostLogger;
  /** Where "announced" is remembered: the throttle's store (shared across the host's processes when it is), else memory. */
  store?: () => Store;
  /** Real time (the tokens' expiry is the service's business, not the test clock's). Default Date.now. */
  now?: () => number;
}

const announcedKey = (passkeyId: string) => `passwordless-passkey-announced:${createHash('sha256').update(passkeyId).digest('base64url')}`;

const eventPasskey = (credential: Credential) => ({ id: credential.descriptor.id, name: credential.nickname ?? '', device: credential.device ?? '' });

/**
 * The host hears of every passkey added to an account, once. The browser's report
 * (add-credential/complete) tells it at once; a client that never reports cannot keep it quiet,
 * because the middleware made the token and so knows a passkey may come: it looks at the service
 * after the token's time is up, from the process that made the token, on its own clock, with no
 * request of anyone's needed. Each path claims the passkey in `store` first, so a passkey reported
 * and also found is told of once (across processes when the store is shared).
 */
export function newPasskeys<U extends LocalUser>(needs: NewPasskeyNeeds<U>): NewPasskeys<U> {
  const announced = windowCounter(ANNOUNCED_FOR_MS, needs.store);
  const now = needs.now ?? Date.now;

  const announce = async (event: PasskeyAddedEvent<U>): Promise<boolean> => {
    let first: boolean;
    try {
      first = (await announced.hit(announcedKey(event.passkey.id))).count === 1;
    } catch (error) {
      // A store that fails (a shared store down) must not silence the hook: told twice beats never.
      needs.logger.error({ err: { name: (error as Error)?.name, message: (error as Error)?.message }, userId: event.userId }, 'passwordless: could not record a passkey as announced');
      first = true;
    }
    if (!first) return false;
    await needs.hooks.passkeyAdded(event);
    return true;
  };

  const look = async (userId: string, known: ReadonlySet<string>) => {
    const added = (await needs.client.listCredentials(userId)).filter((credential) => !known.has(credential.descriptor.id));
    if (added.length === 0) return;
    // A user removed meanwhile has nobody to tell.
    const user = await needs.findUser(userId);
    if (!user) return;
    for (const credential of added) await announce({ user, userId, passkey: eventPasskey(credential), via: 'add' });
  };

  const lookLater = (delayMs: number, userId: string, known: ReadonlySet<string>) => {
    const timer = setTimeout(() => {
      look(userId, known).catch((error: unknown) => {
        needs.logger.error({ err: { name: (error as Error)?.name, message: (error as Error)?.message }, userId }, 'passwordless: could not look for a passkey added to the account (onPasskeyAdded may not hear of it)');
      });
    }, Math.max(0, delayMs));
    // The process may end meanwhile (a host that stops): nothing waits for the look.
    timer.unref();
  };

  return {
    watch(userId, known, tokenExpiresAt) {
      const knownIds = new Set(known);
      const untilExpiry = tokenExpiresAt - now();
      lookLater(untilExpiry + FIRST_LOOK_AFTER_EXPIRY_MS, userId, knownIds);
      lookLater(untilExpiry + LAST_LOOK_AFTER_EXPIRY_MS, userId, knownIds);
    },
    announce,
  };
}
