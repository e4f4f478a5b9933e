import type { UnitOutcome } from './unit';

export type { UnitOutcome } from './unit';

/**
 * The typed queries of every request that runs often (sign-in, verify, the registration ceremony,
 * credentials/list, users/count, users/list and /events), over the SQL layer (`SqlDriver`): prepared
 * statements held for the life of the process on the driver itself (better-sqlite3, pg) rather than
 * through Prisma, whose per-query cost was about 45 % of a sign-in's CPU. Prisma owns the schema and
 * the cold CRUD; these read and write the same rows in the same encodings as Prisma does, so either
 * side reads what the other wrote. The SQL is in `statements.ts`, the multi-statement writes in `units.ts`.
 *
 * A write that a webhook reports takes the deliveries that report it (none: an empty list), and
 * commits them with the change.
 *
 * Every statement is scoped by the app (its `tenant` column). Times are epoch milliseconds. A write for an app that
 * is gone fails with the driver's foreign-key error (see `isForeignKeyViolation`).
 */
export interface Queries {
  /** A user's credentials for an allow list, most recently used first. */
  findUserCredentials(appId: string, userId: string, limit: number): Promise<CredentialDescriptor[]>;
  /** The columns a sign-in needs of one credential. */
  findCredential(appId: string, descriptorId: string): Promise<HotCredential | undefined>;
  /**
   * Records a verified assertion, conditional on the counter read before verifying: with a new
   * counter above zero the stored one must be lower, with zero it must still be the one read. False when
   * the condition failed (a raced or cloned authenticator) or the credential is gone.
   */
  recordCredentialUse(use: CredentialUse, webhookDeliveries: NewWebhookDelivery[]): Promise<boolean>;
  /** Records a single-use token id; false when it was already recorded (and then no delivery is written either). */
  redeemToken(appId: string, tokenId: string, expiresAt: number, webhookDeliveries: NewWebhookDelivery[]): Promise<boolean>;
  /**
   * redeemToken and findCredential together (signin/complete: the session's single-use id), both at
   * once; the redemption goes with the others of its turn (one commit for all of them on
   * PostgreSQL). The id is redeemed whether or not the credential exists.
   */
  redeemTokenAndFindCredential(appId: string, tokenId: string, expiresAt: number, descriptorId: string): Promise<{ redeemed: boolean; credential: HotCredential | undefined }>;
  /** Whether a single-use token id was recorded: one primary-key read. */
  isTokenRedeemed(appId: string, tokenId: string): Promise<boolean>;

  /** Every passkey of a user with every column, oldest first (credentials/list). */
  listCredentials(appId: string, userId: string): Promise<StoredCredential[]>;
  /** What register/token needs to refuse a new user early: one read. Undefined when the app is gone. */
  userCapacity(appId: string, userId: string): Promise<UserCapacity | undefined>;
  /** How many users of the app have a passkey (kept, not counted): one primary-key read. 0 when the app is gone. */
  countUsers(appId: string): Promise<number>;
  /**
   * Up to `limit` users whose userId sorts after `after` ('' = from the first), in that order, and
   * the key to continue after (null when this page reached the end).
   */
  usersPage(appId: string, after: string, limit: number): Promise<UsersPage>;
  /**
   * Up to `limit` users whose userId starts with `prefix` and sorts after `after` (undefined: from
   * the first), in the order of their UTF-8 bytes on both databases, and the key to continue after
   * (null when this page reached the end): one range of the users' key (userIdSearchRange).
   */
  usersSearch(appId: string, prefix: string, after: string | undefined, limit: number): Promise<UsersPage>;

  /**
   * Writes a batch of events, whatever their apps, with each app's count of them, in one
   * transaction; an event of an app that is gone rejects the batch with the driver's foreign-key error.
   */
  writeEvents(events: NewEvent[]): Promise<void>;
  /** One page of the app's events, newest first, after the event `after` names (null: from the newest), and how many the app has (kept, not counted). */
  eventsPage(appId: string, after: EventKey | null, limit: number): Promise<{ events: StoredEvent[]; total: number }>;
  /**
   * Up to `filter.limit` of the app's events, newest first, below `filter.before` and at or after
   * `filter.since`, of `filter.types` (undefined: any), and the key to continue below (null when
   * the window holds no more). With types, at most `filter.scan` events of the window are read: a
   * page short of `limit` with a key to continue means that many were read without filling it.
   */
  eventsFiltered(appId: string, filter: EventsFilter): Promise<{ events: StoredEvent[]; next: EventKey | null }>;

  /**
   * Stores a verified passkey, in one transaction with everything it changes: the user's aliases
   * (replaced when given), the user's row and, when this is the user's first passkey, the app's
   * number of users, within its maxUsers (else nothing is stored and the outcome is the failure
   * `max_users_reached`). A duplicate credential id or a taken alias rejects with the driver's
   * unique-violation error, and nothing is stored. New writes that must commit with the passkey
   * are further steps of its unit (`registrationSteps`).
   */
  storeRegistration(registration: NewRegistration): Promise<UnitOutcome>;
  /** Deletes one passkey of the user (and the user, if it was their last passkey and they have no alias); false when it was not there. */
  deleteCredential(appId: string, descriptorId: string, userId: string, webhookDeliveries: NewWebhookDelivery[]): Promise<boolean>;
  /** Deletes the user: their passkeys, aliases and row, in one transaction. */
  deleteUser(appId: string, userId: string, webhookDeliveries: NewWebhookDelivery[]): Promise<void>;
  /** Replaces the user's whole alias set in one transaction; a taken alias rejects with the driver's unique-violation error. */
  replaceAliases(appId: string, userId: string, aliases: NewAlias[], webhookDeliveries: NewWebhookDelivery[]): Promise<void>;
  close(): Promise<void>;
}

/** How a ceremony names one of a user's passkeys: its id, transports and PRF salt. */
export interface CredentialDescriptor {
  descriptorId: string;
  /** JSON array, as stored. */
  transports: string;
  /** Hex; null only for a row written without one (the migration gave every earlier passkey one). */
  prfSalt: string | null;
}

export interface HotCredential {
  descriptorId: string;
  userId: string;
  userHandle: string;
  publicKey: string;
  signatureCounter: number;
  /** JSON array, as stored. */
  transports: string;
  backupEligible: boolean;
  uvInitialized: boolean;
  nickname: string;
  /** The UTC day (days since 1970-01-01) of the last use, as stored. */
  lastUsedDay: number;
}

export interface CredentialUse {
  tenant: string;
  descriptorId: string;
  storedCounter: number;
  newCounter: number;
  backupState: boolean;
  uvInitialized: boolean;
  usedAt: number;
  /** `lastUsedDay` as read with the credential: only a use on another day writes the indexed day again. */
  lastUsedDay: number;
  device: string;
  country: string;
}

/** A credential row with every column (times as epoch milliseconds). */
export interface StoredCredential extends HotCredential {
  attestationFmt: string;
  aaGuid: string;
  rpid: string;
  origin: string;
  country: string;
  device: string;
  backupState: boolean;
  isDiscoverable: boolean | null;
  createdAt: number;
  lastUsedAt: number;
  /** The passkey's PRF salt (32 bytes, hex); null only for a row written without one. */
  prfSalt: string | null;
  /** The registration's `prf.enabled` client extension result; null when not reported. */
  prfEnabled: boolean | null;
  /** Made by the automatic upgrade after a password sign-in (a conditional create). */
  madeByUpgrade: boolean;
}

export interface UserCapacity {
  userCount: number;
  maxUsers: number | null;
  /** Whether this user already has a passkey (and so does not count as a new user). */
  hasPasskey: boolean;
}

export interface UserSummary {
  userId: string;
  credentialsCount: number;
  aliasCount: number;
  /** Plaintext, or null for a hashed alias. */
  aliases: (string | null)[];
  lastUsedAt: number | null;
}

export interface UsersPage {
  users: UserSummary[];
  next: string | null;
}

/** Where an event sits in the log's order: newest first, ties broken by id. */
export interface EventKey {
  performedAt: number;
  id: string;
}

/** What `eventsFiltered` reads: a window of the log by key and time, and the types it keeps. */
export interface EventsFilter {
  /** Events below this key (a page's last event; a time with an empty id for the window's end). */
  before: EventKey;
  /** Events at or after this time (epoch ms). */
  since: number;
  /** Event types to keep (undefined: every one). */
  types?: string[];
  limit: number;
  /** With types, the most events one call reads (at least `limit`). */
  scan: number;
}

export interface StoredEvent extends EventKey {
  eventType: string;
  message: string;
  severity: string;
  performedBy: string;
  subject: string;
  apiKeyId: string;
}

export interface NewEvent extends StoredEvent {
  tenant: string;
}

export interface NewAlias {
  aliasHash: string;
  /** Only when the alias is stored unhashed. */
  plaintext: string | null;
}

export interface NewRegistration {
  tenant: string;
  credential: StoredCredential;
  /** The user's new alias set, replacing the old one; undefined leaves the aliases alone. */
  aliases?: NewAlias[];
  /** A single-use token the passkey redeems: already redeemed, nothing is stored and the outcome is the failure `token_already_used`. */
  redeemedToken?: { tokenId: string; expiresAt: number };
  /** Webhook deliveries that report this passkey, committed with it. */
  webhookDeliveries: NewWebhookDelivery[];
}

/**
 * A row of the webhook outbox. Every write that a webhook reports takes its deliveries: they are
 * written in the same transaction as the change (no crash between the two can lose one), and with
 * none the write is exactly what it was.
 */
export interface NewWebhookDelivery {
  /** The delivery's id, and its `webhook-id` unless `webhookId` is given. */
  id: string;
  /** A replay's `webhook-id`: the id of the event it replays (written only by redeliver, never on the hot path). */
  webhookId?: string;
  tenant: string;
  endpointId: string;
  eventType: string;
  /** The JSON body, as sent. */
  payload: string;
  /** Epoch milliseconds; also when the first attempt is due, unless `nextAttemptAt` holds it back. */
  createdAt: number;
  /** When the first attempt is due, if later than `createdAt` (a magic link's deliveries wait for its mail). */
  nextAttemptAt?: number;
  /** The traceparent of the span that queued it (set by `webhookDeliveryStep` when tracing is on). */
  traceContext?: string;
}
