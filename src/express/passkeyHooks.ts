import type { HostLogger } from './routes/context';
import type { LocalUser } from './userStore';

/** A passkey as the hooks describe it. */
export interface PasskeyEventPasskey {
  /** The credential id, base64url. */
  id: string;
  /** Its nickname; empty when none. */
  name: string;
  /** The browser and OS it was made or last seen on, as the service describes it. */
  device: string;
}

export interface PasskeyEvent<U extends LocalUser = LocalUser> {
  user: U;
  userId: string;
  passkey: PasskeyEventPasskey;
}

export interface PasskeyAddedEvent<U extends LocalUser = LocalUser> extends PasskeyEvent<U> {
  /** `sign-up`: the user's first passkey; `add`: another one, from the signed-in user's session. */
  via: 'sign-up' | 'add';
}

/** What a host hears of its users' passkeys, to tell them (a mail: "a passkey was added to your account"). */
export interface PasskeyHookOptions<U extends LocalUser = LocalUser> {
  onPasskeyAdded?: (event: PasskeyAddedEvent<U>) => void | Promise<void>;
  onPasskeyDeleted?: (event: PasskeyEvent<U>) => void | Promise<void>;
}

export interface PasskeyHooks<U extends LocalUser> {
  passkeyAdded(event: PasskeyAddedEvent<U>): Promise<void>;
  passkeyDeleted(event: PasskeyEvent<U>): Promise<void>;
}

/**
 * The host's hooks, awaited before the route answers (so a test, or a host, sees the mail sent),
 * and never failing it: the passkey was added or deleted either way, and a hook's error is logged.
 */
export function passkeyHooks<U extends LocalUser>(options: PasskeyHookOptions<U>, logger: HostLogger): PasskeyHooks<U> {
  const call = async <E extends PasskeyEvent<U>>(name: string, hook: ((event: E) => void | Promise<void>) | undefined, event: E) => {
    if (!hook) return;
    try {
      await hook(event);
    } catch (error) {
      logger.error({ err: { name: (error as Error)?.name, message: (error as Error)?.message }, userId: event.userId }, `passwordless: the ${name} hook failed`);
    }
  };
  return {
    passkeyAdded: (event) => call('onPasskeyAdded', options.onPasskeyAdded, event),
    passkeyDeleted: (event) => call('onPasskeyDeleted', options.onPasskeyDeleted, event),
  };
}
