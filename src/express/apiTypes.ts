import type { VerifyTokenType } from '../shared/tokens';
import type { Attestation, AuthenticatorType, UserVerification } from '../shared/vocabulary';

// The private API's request and answer shapes, as the service (and the spec) define them.

export type { Attestation, AuthenticatorType, UserVerification };

/** `POST /register/token`. */
export interface RegisterOptions {
  /** The WebAuthn user handle: at most 64 bytes, no personal data. */
  userId: string;
  username: string;
  displayName?: string;
  attestation?: Attestation;
  authenticatorType?: AuthenticatorType;
  discoverable?: boolean;
  userVerification?: UserVerification;
  /** Default: now + 120 s. */
  expiresAt?: Date | string;
  /** An empty list leaves the user's existing aliases as they are. */
  aliases?: string[];
  aliasHashing?: boolean;
  hints?: ('security-key' | 'client-device' | 'hybrid')[];
  /** The WebAuthn extensions the registration asks the browser for (an extension of this service). */
  extensions?: { prf?: boolean; largeBlob?: 'required' | 'preferred'; credProps?: boolean };
  /** Ours (issue 35): a token for the automatic upgrade, which the browser may begin as a conditional create. */
  upgrade?: boolean;
  /** Ours (issue 45): the id of a proof of the user, spent on this token at the service, once (else 409 `proof_already_used`). */
  proofId?: string;
}

/** `POST /signin/verify`: what a valid token proves. */
export interface VerifiedUser {
  success: boolean;
  userId: string;
  timestamp: string;
  rpid: string | null;
  rpId: string | null;
  origin: string | null;
  device: string | null;
  country: string | null;
  nickname: string | null;
  /** Standard base64. */
  credentialId: string | null;
  expiresAt: string;
  tokenId: string;
  type: VerifyTokenType;
  purpose: string | null;
  backupEligible: boolean | null;
  backupState: boolean | null;
}

/** One element of `/credentials/list`. */
export interface Credential {
  descriptor: { type: 'public-key'; id: string; transports?: string[] };
  publicKey: string;
  userHandle: string;
  signatureCounter: number;
  attestationFmt: string;
  createdAt: string;
  aaGuid: string;
  lastUsedAt: string;
  rpid: string;
  origin: string;
  country: string;
  device: string;
  nickname: string;
  userId: string;
  backupState: boolean;
  isBackupEligible: boolean;
  isDiscoverable: boolean | null;
  /** Whether the passkey supports PRF, as its registration reported (an extension of this service); null when not reported. */
  prfEnabled?: boolean | null;
  /** The authenticator's or passkey provider's name, from its AAGUID (an extension of this service); null when unknown. */
  /** The authenticator's or passkey provider's name (FIDO metadata, else its AAGUID in the bundled list); null when unknown. */
  authenticatorName?: string | null;
  /** Ours (issue 35): made by the automatic upgrade after a password sign-in (a conditional create). */
  upgrade?: boolean;
}

/** One element of `/authenticators/list`. */
export interface AuthenticatorListEntry {
  aaGuid: string;
  createdAt: string;
}

/** `from` and `to` of a report, `yyyy-MM-dd` (UTC), both inclusive and optional. */
export interface ReportPeriod {
  from?: string;
  to?: string;
}

/** One day of `/reporting/credentials/periodic`. */
export interface CredentialsReportDay {
  /** `yyyy-MM-dd`. */
  createdAt: string;
  users: number;
  credentials: number;
}

/** One day of `/reporting/active-users/periodic`. */
export interface ActiveUsersReportDay {
  /** `yyyy-MM-dd`. */
  createdAt: string;
  dailyActiveUsers: number;
  weeklyActiveUsers: number;
  totalUsers: number;
}

/** One element of `/alias/list`. `alias` is the stored hash; `plaintext` only when stored unhashed. */
export interface AliasPointer {
  userId: string;
  alias: string;
  plaintext: string | null;
}

/** One element of `/users/list`. */
export interface UserSummary {
  userId: string;
  aliasCount: number;
  aliases: (string | null)[];
  credentialsCount: number;
  lastUsedAt: string | null;
}

/** `POST /signin/generate-token`. */
export interface GenerateTokenOptions {
  userId: string;
  /** Seconds, default 120. */
  timeToLive?: number;
  /** What the token proves, as a verify result's `purpose`; default `sign-in`. */
  purpose?: string;
}

/** `POST /magic-links/send`. */
export interface MagicLinkOptions {
  emailAddress: string;
  /** An absolute http(s) URL containing `$TOKEN`. */
  urlTemplate: string;
  userId: string;
  /** Seconds, default 3600. */
  timeToLive?: number;
}

/** An authentication configuration (purpose) as `/auth-configs/list` answers it. */
export interface AuthConfiguration {
  purpose: string;
  /** Seconds. */
  timeToLive: number;
  userVerificationRequirement: UserVerification;
  createdBy: string;
  createdOn: string | null;
  editedBy: string | null;
  editedOn: string | null;
  lastUsedOn: string | null;
  [extra: string]: unknown;
}

/** `POST /auth-configs/add`. */
export interface AuthConfigurationInput {
  /** `A-Z a-z 0-9 - _`, at most 255 characters. */
  purpose: string;
  /** `hh:mm:ss` or `d.hh:mm:ss`, or whole seconds. */
  timeToLive: string | number;
  /** Default `preferred`. */
  userVerificationRequirement?: UserVerification;
  /** Who made the change (recorded as createdBy / editedBy). */
  performedBy: string;
}

/** `POST /auth-configs`: changes the fields it is given. */
export type AuthConfigurationEdit = Pick<AuthConfigurationInput, 'purpose' | 'performedBy'> & Partial<Pick<AuthConfigurationInput, 'timeToLive' | 'userVerificationRequirement'>>;

/** One page of `GET /events`. */
export interface EventLogPage {
  tenantId: string;
  events: {
    id?: string;
    performedAt: string;
    eventType: string;
    message: string;
    severity: string;
    performedBy?: string;
    subject: string;
    apiKeyId: string;
  }[];
  totalEventCount: number;
}

/** `POST /apps/features` (the reference's names). */
export interface AppFeaturesInput {
  enableMagicLinks?: boolean;
  enableManuallyGeneratedAuthenticationTokens?: boolean;
  eventLoggingRetentionPeriod?: number;
  performedBy?: string;
}
