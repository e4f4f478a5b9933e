/**
 * The statements every sign-in, verify and registration makes, run as prepared statements held
 * for the life of the process on the driver itself (better-sqlite3, pg) rather than through
 * Prisma, whose per-query cost was about 45 % of a sign-in's CPU. Prisma owns the schema and
 * every other query; these read and write the same rows in the same encodings as Prisma does,
 * so either side reads what the other wrote.
 *
 * Every statement is scoped by the app (its `tenant` column). Times are epoch milliseconds. A write for an app that
 * is gone fails with the driver's foreign-key error (see `isForeignKeyViolation`).
 */
export interface HotPath {
  /** Stores a freshly issued challenge. */
  insertChallenge(challenge: ChallengeRow): Promise<void>;
  /**
   * Deletes the challenge if it is unexpired and was issued to this app for this ceremony, in
   * one `DELETE … RETURNING`; undefined when there was nothing to delete.
   */
  deleteChallenge(appId: string, ceremony: string, id: string, now: number): Promise<{ expectedUserId: string | null } | undefined>;
  /** A user's credentials for an allow list, most recently used first. */
  findUserCredentials(appId: string, userId: string, limit: number): Promise<{ descriptorId: string; transports: string }[]>;
  /** The columns a sign-in needs of one credential. */
  findCredential(appId: string, descriptorId: string): Promise<HotCredential | undefined>;
  /**
   * Records a verified assertion, conditional on the counter read before verifying: with a new
   * counter above zero the stored one must be lower, with zero it must still be the one read. False when
   * the condition failed (a raced or cloned authenticator) or the credential is gone.
   */
  recordCredentialUse(use: CredentialUse): Promise<boolean>;
  /** Records a single-use token id; false when it was already recorded. */
  redeemToken(appId: string, tokenId: string, expiresAt: number): Promise<boolean>;
  close(): Promise<void>;
}

export interface ChallengeRow {
  id: string;
  tenant: string;
  ceremony: string;
  expiresAt: number;
  expectedUserId: string | null;
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
