/**
 * `passwordless-selfhost/browser`: the browser side of the Express middleware. It runs the
 * ceremonies against the service's public API in the wire format of the published client
 * (`@passwordlessdev/passwordless-client`, whose autofill detection it uses), and with the
 * middleware's routes does what a page does with passkeys: sign up, sign in (autofill included),
 * step up, manage passkeys, recover, sign out. It keeps the browser's passkey list in step with
 * the server's through the WebAuthn Signal API where the browser has it.
 *
 * Served by the middleware (`serveBrowserModule`) for pages without a bundler, or imported from the
 * package through a bundler. ESM, no dependency beyond the published client.
 */
import { isAutofillSupported, type ProblemDetails } from '@passwordlessdev/passwordless-client';
import { clientCapabilities } from './capabilities.js';
import { registrationCeremony } from './registrationCeremony.js';
import type { CeremonyResult } from './runCeremony.js';
import { signInCeremony } from './signInCeremony.js';
import type { ClientExtensionResults } from './webauthnJson.js';

export type { ClientExtensionResults } from './webauthnJson.js';

/** What `GET /passwordless-config` answers (the middleware's `exposeConfig`). */
export interface PasskeysConfig {
  apiUrl: string;
  apiKey: string;
  /** Where each of the middleware's routes is mounted. */
  paths: Partial<Record<'register' | 'login' | 'addCredential' | 'addCredentialComplete' | 'logout' | 'verifyEmail' | 'passkeys' | 'renamePasskey' | 'deletePasskey' | 'stepUp' | 'recover' | 'confirmRecovery' | 'upgrade' | 'sessions' | 'endSession', string>>;
  /** How often an autofill request is restarted, before its challenge expires. */
  autofillRestartSeconds: number;
}

/** A problem as reported, with whatever else it carries (`purpose`, `credentialId`, `errors`...). */
export type Problem = ProblemDetails & { [extra: string]: unknown };

/** A failure the page can show: the problem the middleware, the service or the browser reported. */
export class PasskeyError extends Error {
  readonly problem: Problem;

  constructor(problem: ProblemDetails) {
    super(problem.detail ? `${problem.title} ${problem.detail}` : problem.title);
    this.name = 'PasskeyError';
    this.problem = problem as Problem;
  }

  get errorCode(): string {
    return this.problem.errorCode;
  }
}

/** One of the signed-in user's passkeys, as `GET /passwordless-passkeys` lists it. */
export interface Passkey {
  id: string;
  name: string;
  providerName: string | null;
  createdAt: string;
  lastUsedAt: string;
  synced: boolean;
  device: string;
  /** Supports the PRF extension, as its registration reported; null when not reported. */
  prfEnabled: boolean | null;
}

export interface PasskeyList {
  user: { userId: string; userHandle: string; name: string; displayName: string };
  /** The last used first. */
  passkeys: Passkey[];
}

/** One place the user is signed in, as `GET /passwordless-sessions` lists it (this one first, then the last seen first). */
export interface SignedInSession {
  /** An opaque handle for `endSession` (not the session's cookie). */
  id: string;
  device: string;
  browser: string;
  /** The passkey that opened it; null for a password or recovery sign-in, or a deleted passkey. */
  passkeyName: string | null;
  passkeyId: string | null;
  createdAt: string;
  lastSeenAt: string;
  /** This browser's session. */
  current: boolean;
}

/** A sign-up a mailed link opened, as it was started (see `signUpPending`). */
export interface PendingSignUp {
  email: string;
  username: string;
  displayName: string;
}

/**
 * What the sign-up link's value says of the sign-up, read for display only: the middleware checks
 * its signature when the page posts it back, and takes the names from the post, not from it.
 */
function pendingSignUpOf(value: string): PendingSignUp | undefined {
  try {
    const payload = value.split('.')[0].replace(/-/g, '+').replace(/_/g, '/');
    const bytes = Uint8Array.from(atob(payload), (c) => c.charCodeAt(0));
    const claim = JSON.parse(new TextDecoder().decode(bytes)) as { e?: unknown; n?: unknown; d?: unknown };
    if (typeof claim.e !== 'string' || typeof claim.n !== 'string') return undefined;
    return { email: claim.e, username: claim.n, displayName: typeof claim.d === 'string' ? claim.d : claim.n };
  } catch {
    return undefined;
  }
}

/** What the middleware's login answers: the host's public fields of the user. */
export type SignedInUser = Record<string, unknown>;

export interface SignInOptions {
  /**
   * Offer the user's passkeys in the autofill of an input with `autocomplete="username webauthn"`:
   * a conditional request that stays open (restarted before its challenge expires) until the user
   * picks a passkey; `onSignedIn` then hears of it. `signIn()` without it, e.g. from a button,
   * ends the autofill request and starts its own.
   */
  autofill?: boolean;
  /** Sign in by this alias (e.g. the email address) instead of discoverably. */
  alias?: string;
  /** Autofill: told of the signed-in user. */
  onSignedIn?(user: SignedInUser): void;
  /** Autofill: told of a failed attempt (the request is restarted unless the failure is final). */
  onError?(error: PasskeyError): void;
  /**
   * `'immediate'`: where the browser reports `immediateGet`, ask without showing anything: resolves
   * signed in when a passkey for this site is on the device, else rejects at once with
   * `PasskeyError` `no_passkey_on_device` (show the password form). Where the browser lacks it, the
   * usual (modal) request.
   */
  mediation?: 'immediate';
}

/**
 * How `upgrade()` ended: `created` (a passkey was made silently and the host told), `unsupported`
 * (the browser has no conditional create: offer a button that calls `addPasskey()` instead),
 * `not-offered` (the host offers none: no fresh password sign-in in this session, or it was spent),
 * `declined` (the browser made none: its password manager did not vouch for this sign-in, or a
 * passkey of this user's is already on the device; a button that calls `addPasskey()` then makes
 * one with this upgrade's token, in the usual prompt, within `Register__Expiration`).
 * With `unsupported` the password sign-in's proof is unspent, and `addPasskey()` spends it.
 */
export type UpgradeOutcome = 'created' | 'unsupported' | 'not-offered' | 'declined';

export interface Passkeys {
  /** Starts a sign-up: `{verificationSent: true}` when the site mails a link first, else the passkey is made and the user signed in. */
  signUp(input: { email: string; username: string; displayName?: string }): Promise<{ verificationSent: true } | { user: SignedInUser; extensions: ClientExtensionResults }>;
  /**
   * On the page a sign-up link opened: the address and the names the sign-up was started with,
   * whoever started it (anyone can ask for a link to any address), for the page to show the owner
   * to confirm or change before `finishSignUp`; undefined when the page was not opened from one.
   */
  signUpPending(): PendingSignUp | undefined;
  /**
   * On the page a sign-up link opened: makes the passkey and signs in, with the username and
   * display name given here (those the owner confirmed, not the link's); undefined when the page
   * was not opened from one.
   */
  finishSignUp(profile: { username: string; displayName?: string }): Promise<SignedInUser | undefined>;
  signIn(options?: SignInOptions): Promise<SignedInUser | undefined>;
  /**
   * A sign-in (by alias, else discoverable) that also hands the page the browser's client extension
   * results: `extensions.prf.results.first` (an ArrayBuffer) when the site's sign-in configuration
   * asks for PRF and the passkey has it. PRF needs the alias: the service's salts are per passkey.
   * The service never receives the PRF outputs.
   */
  signInWithExtensions(options?: { alias?: string }): Promise<{ user: SignedInUser; extensions: ClientExtensionResults }>;
  /** Ends a waiting autofill request. */
  stopAutofill(): void;
  /** Confirms it is the signed-in user, with their passkey, for `purpose` (default `step-up`). */
  stepUp(options?: { purpose?: string }): Promise<{ extensions: ClientExtensionResults }>;
  /**
   * Makes another passkey for the signed-in user and tells the host of it. After an `upgrade()` the
   * browser declined, with that upgrade's token (the one-click offer); else with a token the site
   * gives for a proof that it is the user: a step-up with a passkey they have (run by itself when
   * asked), or a sign-in minutes ago (else `PasskeyError` `fresh_sign_in_required`: sign in again).
   */
  addPasskey(options?: { nickname?: string }): Promise<{ extensions: ClientExtensionResults }>;
  passkeys(): Promise<PasskeyList>;
  renamePasskey(id: string, name: string): Promise<void>;
  /** Deletes a passkey; a step-up it needs runs by itself, through the user's passkey. */
  deletePasskey(id: string): Promise<void>;
  /** Where the user is signed in (the site must give the middleware its `sessionStore`). */
  sessions(): Promise<SignedInSession[]>;
  /** Ends one of those sessions (signed out at its next request); this one ends at once, like `signOut`. Ending another runs the step-up it needs by itself. */
  endSession(id: string): Promise<void>;
  /** Ends every session but this one, stepping up first when there are any; resolves with how many ended. */
  endOtherSessions(): Promise<number>;
  /** Asks for a recovery link to be mailed to `email` (the same answer whether or not it has an account). */
  recover(email: string): Promise<void>;
  /** Whether this page was opened from a recovery link (show the confirm button). */
  recoveryPending(): boolean;
  /**
   * Whether this page was opened from the mail a sign-up with a taken address sends its owner
   * ("you already have an account": offer to sign in). The link's values leave the address bar.
   */
  accountExists(): boolean;
  /** The confirm button on that page: signs in once with the link. */
  confirmRecovery(): Promise<SignedInUser>;
  signOut(): Promise<void>;
  /**
   * Right after a password sign-in (the host called `notePasswordSignIn`): makes a passkey without
   * a prompt where the browser has conditional create, and tells the host of it. Never prompts.
   */
  upgrade(options?: { nickname?: string }): Promise<UpgradeOutcome>;
  /** What the browser says it can do (`PublicKeyCredential.getClientCapabilities()`); empty where it cannot say. */
  capabilities(): Promise<Record<string, boolean>>;
}

// The WebAuthn Signal API (Chromium 132+); feature-detected, never required.
interface SignalApi {
  signalUnknownCredential?(options: { rpId: string; credentialId: string }): Promise<void>;
  signalAllAcceptedCredentials?(options: { rpId: string; userId: string; allAcceptedCredentialIds: string[] }): Promise<void>;
  signalCurrentUserDetails?(options: { rpId: string; userId: string; name: string; displayName: string }): Promise<void>;
}

const signals = (): SignalApi => (globalThis as { PublicKeyCredential?: SignalApi }).PublicKeyCredential ?? {};

/** Signals never break the flow they follow: the browser may refuse them (e.g. no user activation). */
async function signal(call: (api: SignalApi) => Promise<void> | undefined): Promise<void> {
  try {
    await call(signals());
  } catch {
    // ignored on purpose
  }
}

/** A ceremony ends with a token or a problem; this makes the problem a thrown PasskeyError. */
function tokenOf(result: CeremonyResult): string {
  if (result.problem) throw new PasskeyError(result.problem as ProblemDetails);
  return result.token;
}

function fragmentValues(): URLSearchParams {
  return new URLSearchParams(location.hash.slice(1));
}

/** Drops the link's values from the address bar (and from history), so they are not reused or shared. */
function clearFragment(): void {
  history.replaceState(null, '', location.pathname + location.search);
}

/**
 * The page's passkey functions, set up from the host's config (`configUrl`, default
 * `/passwordless-config`). `rpId` defaults to the page's host name, as the published client's.
 */
export async function createPasskeys(options: { configUrl?: string; rpId?: string } = {}): Promise<Passkeys> {
  const config = (await (await fetch(options.configUrl ?? '/passwordless-config', { credentials: 'same-origin' })).json()) as PasskeysConfig;
  const rpId = options.rpId ?? location.hostname;
  // Every ceremony runs here, in the published client's wire format, so that the extensions are handled on each (webauthnJson).
  const publicApi = { apiUrl: config.apiUrl, apiKey: config.apiKey, rpId, origin: location.origin };
  let autofillRun = 0;
  let autofillAbort: AbortController | undefined;
  let userId: string | undefined;
  // The token of an upgrade the browser declined: the one-click offer that follows makes the
  // passkey with it (modally), since the password proof it spent cannot make another.
  let declinedUpgradeToken: string | undefined;

  const path = (name: keyof PasskeysConfig['paths']): string => {
    const found = config.paths[name];
    if (!found) throw new PasskeyError({ from: 'client', errorCode: 'route_not_mounted', title: `The site does not offer '${name}'.` });
    return found;
  };

  /** Posts JSON (every post says so, even without a body: the middleware refuses others) and reads the answer. */
  async function post<T>(name: keyof PasskeysConfig['paths'], body: unknown = {}): Promise<T> {
    const res = await fetch(path(name), { method: 'POST', credentials: 'same-origin', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    const text = await res.text();
    const answer = text ? (JSON.parse(text) as unknown) : undefined;
    if (!res.ok) throw new PasskeyError({ from: 'server', errorCode: 'unknown', title: `HTTP ${res.status}`, ...(answer as object) } as ProblemDetails);
    return answer as T;
  }

  async function login(token: string): Promise<SignedInUser> {
    return post<SignedInUser>('login', { token });
  }

  /** A sign-in the server refused because the passkey is gone: the browser stops offering it. */
  async function forgetIfUnknown(error: unknown): Promise<void> {
    const problem = error instanceof PasskeyError ? error.problem : undefined;
    const credentialId = problem?.credentialId;
    if (problem?.errorCode === 'unknown_credential' && typeof credentialId === 'string') {
      await signal((api) => api.signalUnknownCredential?.({ rpId, credentialId }));
    }
  }

  async function list(): Promise<PasskeyList> {
    const res = await fetch(path('passkeys'), { credentials: 'same-origin' });
    const answer = (await res.json()) as PasskeyList | (ProblemDetails & Record<string, unknown>);
    if (!res.ok) throw new PasskeyError(answer as ProblemDetails);
    const current = answer as PasskeyList;
    userId = current.user.userId;
    const { userHandle, name, displayName } = current.user;
    await signal((api) => api.signalAllAcceptedCredentials?.({ rpId, userId: userHandle, allAcceptedCredentialIds: current.passkeys.map((p) => p.id) }));
    await signal((api) => api.signalCurrentUserDetails?.({ rpId, userId: userHandle, name, displayName }));
    return current;
  }

  /** A sign-in by alias, else discoverable; `immediate` rejects with `no_passkey_on_device` where the browser holds none. */
  async function passkeySignIn(alias: string | undefined, mediation: 'modal' | 'immediate' = 'modal'): Promise<{ user: SignedInUser; extensions: ClientExtensionResults }> {
    const result = await signInCeremony(publicApi, { alias: alias || undefined }, { mediation });
    if (mediation === 'immediate' && (result.declined === 'NotAllowedError' || result.declined === 'NoCredential')) {
      throw new PasskeyError({ from: 'client', errorCode: 'no_passkey_on_device', title: 'There is no passkey for this site on this device.', detail: `The browser answered ${result.declined}.` });
    }
    try {
      const user = await login(tokenOf(result));
      return { user, extensions: result.extensions ?? {} };
    } catch (error) {
      await forgetIfUnknown(error);
      throw error;
    }
  }

  async function autofill(signInOptions: SignInOptions): Promise<undefined> {
    if (!(await isAutofillSupported())) return undefined;
    const run = ++autofillRun;
    const restartMs = config.autofillRestartSeconds * 1000;
    while (run === autofillRun) {
      const startedAt = Date.now();
      let restarted = false;
      // The challenge of a waiting request expires at the service: start a fresh one before it does.
      const abort = (autofillAbort = new AbortController());
      const timer = setTimeout(() => {
        restarted = true;
        if (run === autofillRun) abort.abort();
      }, restartMs);
      const result = await signInCeremony(publicApi, {}, { mediation: 'conditional', signal: abort.signal });
      clearTimeout(timer);
      if (run !== autofillRun) return undefined;
      if (result.token !== undefined) {
        try {
          const user = await login(result.token);
          autofillRun++;
          signInOptions.onSignedIn?.(user);
          return undefined;
        } catch (error) {
          if (!(error instanceof PasskeyError)) throw error;
          signInOptions.onError?.(error);
        }
      } else if (result.problem.from === 'server') {
        // The service refused the passkey (e.g. deleted on the server): the browser forgets it, the page hears why.
        const error = new PasskeyError(result.problem as ProblemDetails);
        await forgetIfUnknown(error);
        signInOptions.onError?.(error);
      }
      // A prompt the browser dismissed, or no passkey to offer: not the user's error to see. Either
      // way the next request waits out the interval, so that nothing spins.
      const rest = restartMs - (Date.now() - startedAt);
      if (!restarted && rest > 0) await new Promise((resolve) => setTimeout(resolve, rest));
    }
    return undefined;
  }

  /** `signIn({mediation: 'immediate'})`: see SignInOptions.mediation. */
  async function immediateSignIn(alias: string | undefined): Promise<SignedInUser> {
    return (await passkeySignIn(alias, (await clientCapabilities()).immediateGet ? 'immediate' : 'modal')).user;
  }

  function stopAutofill(): void {
    autofillRun++;
    autofillAbort?.abort();
  }

  async function stepUp({ purpose = 'step-up' }: { purpose?: string } = {}): Promise<{ extensions: ClientExtensionResults }> {
    const id = userId ?? (await list()).user.userId;
    const result = await signInCeremony(publicApi, { userId: id, purpose });
    const token = tokenOf(result);
    await post('stepUp', { token, purpose });
    return { extensions: result.extensions ?? {} };
  }

  /** Makes the passkey a register token is for; the token and the browser's extension results. */
  async function register(token: string, nickname?: string): Promise<{ token: string; extensions: ClientExtensionResults }> {
    const result = await registrationCeremony(publicApi, token, { nickname });
    return { token: tokenOf(result), extensions: result.extensions ?? {} };
  }

  /**
   * The passkey made with the token of a declined upgrade, now in the usual (modal) prompt; undefined
   * when there is none, or the service no longer takes it (expired, or used), and the site is asked
   * for a token as for any added passkey.
   */
  async function registerWithDeclinedUpgrade(nickname: string | undefined): Promise<{ token: string; extensions: ClientExtensionResults } | undefined> {
    const token = declinedUpgradeToken;
    if (token === undefined) return undefined;
    try {
      const made = await register(token, nickname);
      declinedUpgradeToken = undefined;
      return made;
    } catch (error) {
      if (!(error instanceof PasskeyError) || !['expired_token', 'token_already_used'].includes(error.errorCode)) throw error;
      declinedUpgradeToken = undefined;
      return undefined;
    }
  }

  /** Runs `action`; if the middleware asks for a step-up first, runs the step-up it names and `action` once more. */
  async function stepUpWhenAsked<T>(action: () => Promise<T>): Promise<T> {
    try {
      return await action();
    } catch (error) {
      if (!(error instanceof PasskeyError) || error.errorCode !== 'step_up_required') throw error;
      await stepUp({ purpose: typeof error.problem.purpose === 'string' ? error.problem.purpose : 'step-up' });
      return action();
    }
  }

  return {
    async signUp(input) {
      const answer = await post<{ token?: string; verificationSent?: true }>('register', input);
      if (answer.verificationSent) return { verificationSent: true };
      const made = await register(answer.token!, input.email);
      return { user: await login(made.token), extensions: made.extensions };
    },

    signUpPending() {
      const signup = fragmentValues().get('passwordless-signup');
      return signup ? pendingSignUpOf(signup) : undefined;
    },

    async finishSignUp({ username, displayName }) {
      const values = fragmentValues();
      const signup = values.get('passwordless-signup');
      if (!signup) return undefined;
      const { token, email } = await post<{ token: string; email: string }>('verifyEmail', { signup, token: values.get('token'), username, displayName });
      // Only once the link was taken: a refused name can be corrected and sent again.
      clearFragment();
      return login((await register(token, email)).token);
    },

    async signIn(signInOptions = {}) {
      if (signInOptions.autofill) return autofill(signInOptions);
      stopAutofill();
      if (signInOptions.mediation === 'immediate') return immediateSignIn(signInOptions.alias);
      return (await passkeySignIn(signInOptions.alias)).user;
    },

    async signInWithExtensions(signInOptions = {}) {
      stopAutofill();
      return passkeySignIn(signInOptions.alias);
    },

    stopAutofill,
    stepUp,

    async addPasskey({ nickname } = {}) {
      const made = (await registerWithDeclinedUpgrade(nickname)) ?? (await register((await stepUpWhenAsked(() => post<{ token: string }>('addCredential', {}))).token, nickname));
      // The host hears of the new passkey (and may mail the user about it).
      if (config.paths.addCredentialComplete) await post('addCredentialComplete', { token: made.token });
      await list();
      return { extensions: made.extensions };
    },

    passkeys: list,

    async renamePasskey(id, name) {
      await post('renamePasskey', { id, name });
    },

    async deletePasskey(id) {
      await stepUpWhenAsked(() => post('deletePasskey', { id }));
      await list();
    },

    async sessions() {
      const res = await fetch(path('sessions'), { credentials: 'same-origin' });
      const answer = (await res.json()) as { sessions: SignedInSession[] } | ProblemDetails;
      if (!res.ok) throw new PasskeyError(answer as ProblemDetails);
      return (answer as { sessions: SignedInSession[] }).sessions;
    },

    async endSession(id) {
      const { signedOut } = await stepUpWhenAsked(() => post<{ signedOut?: boolean }>('endSession', { id }));
      if (signedOut) {
        stopAutofill();
        userId = undefined;
      }
    },

    async endOtherSessions() {
      return (await stepUpWhenAsked(() => post<{ ended: number }>('endSession', { allButThis: true }))).ended;
    },

    async recover(email) {
      await post('recover', { email });
    },

    recoveryPending: () => fragmentValues().has('passwordless-recovery'),

    accountExists() {
      if (!fragmentValues().has('passwordless-account-exists')) return false;
      clearFragment();
      return true;
    },

    async confirmRecovery() {
      const values = fragmentValues();
      const recovery = values.get('passwordless-recovery');
      if (!recovery) throw new PasskeyError({ from: 'client', errorCode: 'invalid_link', title: 'This page was not opened from a recovery link.' });
      clearFragment();
      return post<SignedInUser>('confirmRecovery', { recovery, token: values.get('token') });
    },

    async signOut() {
      stopAutofill();
      userId = undefined;
      declinedUpgradeToken = undefined;
      await post('logout');
    },

    async upgrade({ nickname } = {}) {
      if (!(await clientCapabilities()).conditionalCreate) return 'unsupported';
      if (!config.paths.upgrade) return 'not-offered';
      let token: string;
      try {
        token = (await post<{ token: string }>('upgrade')).token;
      } catch (error) {
        if (error instanceof PasskeyError && ['upgrade_not_offered', 'not_signed_in'].includes(error.errorCode)) return 'not-offered';
        throw error;
      }
      const made = await registrationCeremony(publicApi, token, { nickname, mediation: 'conditional' });
      if (made.declined) {
        declinedUpgradeToken = token;
        return 'declined';
      }
      // The host hears of the new passkey, as of any other (onPasskeyAdded).
      if (config.paths.addCredentialComplete) await post('addCredentialComplete', { token: tokenOf(made) });
      return 'created';
    },

    capabilities: clientCapabilities,
  };
}
