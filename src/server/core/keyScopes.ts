import type { KeyKind } from '../../shared/apiKeys';

/**
 * Key scopes: what each lets a key do. Every ApiKey and ApiSecret route names one (its
 * declaration's `scope`; mounting a route without one fails). A key may call only the routes of its
 * effective scopes (`effectiveScopes`): its own, except that a key without any, or with exactly the
 * reference service's scopes for its kind (`REFERENCE_SCOPES`), has every scope of its kind, as
 * every secret has every other private route in the reference. The first two of each kind are the
 * reference's, in its enum order (the management API takes scopes by index too); the others are
 * ours, appended so that their indexes never move: the private API's destructive and configuration
 * routes, each area on its own, and minting sign-ins. Keys made with an app get every scope of
 * their kind.
 */
export const SCOPES = {
  register: 'public: register/begin and register/complete',
  login: 'public: signin/begin and signin/complete',
  token_register: 'secret: register/token',
  token_verify: 'secret: signin/verify',
  users: 'secret: users/list, users/count, users/delete, and the reports (reporting/*)',
  credentials: 'secret: credentials/list, credentials/delete and credentials/update',
  aliases: 'secret: alias and alias/list',
  auth_configs: 'secret: auth-configs (list, add, edit, delete)',
  magic_links: 'secret: magic-links/send',
  events: 'secret: events',
  features: "secret: apps/features (the app's own switches) and the authenticator allow and block lists (authenticators/*)",
  account_delete: "secret: /v3/account/delete (schedules the app's deletion)",
  webhooks: "secret: webhooks/* (the app's webhook endpoints, their secrets and delivery log)",
  token_generate: 'secret: signin/generate-token (a sign-in token for any user of the app, without a passkey)',
} as const;
export type Scope = keyof typeof SCOPES;
export const PUBLIC_SCOPES = ['register', 'login'] as const satisfies readonly Scope[];
export const SECRET_SCOPES = [
  'token_register',
  'token_verify',
  'users',
  'credentials',
  'aliases',
  'auth_configs',
  'magic_links',
  'events',
  'features',
  'account_delete',
  'webhooks',
  'token_generate',
] as const satisfies readonly Scope[];

/** All the scopes a reference-service key of each kind can have (its PublicKeyScopes, SecretKeyScopes). */
export const REFERENCE_SCOPES = {
  public: ['register', 'login'],
  secret: ['token_register', 'token_verify'],
} as const satisfies Record<KeyKind, readonly Scope[]>;

/** The scopes of a key kind. */
export const scopesOf = (kind: KeyKind): readonly Scope[] => (kind === 'public' ? PUBLIC_SCOPES : SECRET_SCOPES);

