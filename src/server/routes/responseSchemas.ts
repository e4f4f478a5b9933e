import { z } from 'zod';

// The shapes of the JSON the handlers answer, for the document. The handlers build them; the fuzz
// suite checks every 2xx it receives against them, which is where a drift shows. Objects are loose:
// a client must ignore fields it does not know.

const timestamp = () => z.string().describe('ISO 8601 UTC');

export const tokenAnswer = z.looseObject({ token: z.string() });

/** A list: a bare array, or `{values}` when the app's `sdkCompatibleLists` is on. */
export const listAnswer = <T extends z.ZodType>(item: T) => z.union([z.array(item), z.looseObject({ values: z.array(item) })]);

/** One page of a list paged by key: `next` is the cursor of the following page, null after the last. */
export const pageAnswer = <T extends z.ZodType>(item: T) => z.looseObject({ values: z.array(item), next: z.string().nullable() });

/** WebAuthn options for the browser (`navigator.credentials.create/get`) and the ceremony's session token. */
export const ceremonyOptionsAnswer = z.looseObject({ data: z.looseObject({ challenge: z.string() }), session: z.string() });

const verificationFields = {
  success: z.boolean(),
  timestamp: timestamp(),
  rpid: z.string(),
  rpId: z.string(),
  origin: z.string(),
  device: z.string().nullable(),
  country: z.string().nullable(),
  nickname: z.string().nullable(),
  credentialId: z.string().nullable().describe('base64'),
  expiresAt: timestamp(),
  purpose: z.string().nullable(),
  backupEligible: z.boolean().nullable(),
  backupState: z.boolean().nullable(),
};

export const verificationAnswer = z.looseObject({ ...verificationFields, userId: z.string(), tokenId: z.string(), type: z.string() });

/** The older generation's: `username` (the user's id), no `tokenId` or `type`. */
export const legacyVerificationAnswer = z.looseObject({ ...verificationFields, username: z.string() });

export const credentialAnswer = z.looseObject({
  descriptor: z.looseObject({ id: z.string(), type: z.string() }),
  publicKey: z.string().describe('base64'),
  userHandle: z.string().describe('base64'),
  signatureCounter: z.number(),
  attestationFmt: z.string(),
  createdAt: timestamp(),
  aaGuid: z.string(),
  lastUsedAt: timestamp(),
  rpid: z.string(),
  origin: z.string(),
  country: z.string().nullable(),
  device: z.string().nullable(),
  nickname: z.string().nullable(),
  userId: z.string(),
  backupState: z.boolean().nullable(),
  isBackupEligible: z.boolean().nullable(),
  isDiscoverable: z.boolean().nullable(),
  prfEnabled: z.boolean().nullable().describe("Whether the passkey supports the PRF extension, as its registration's client reported (prf.enabled); null when not reported (an extension)."),
  authenticatorName: z.string().nullable().describe("The authenticator's or passkey provider's name: the FIDO metadata's description when loaded, else its AAGUID in the bundled list (an extension: the reference has none); null when unknown."),
});

/** The older generation's credential also carries `credType` (its attestation format). */
export const legacyCredentialAnswer = credentialAnswer.extend({ credType: z.string() });

/** `alias` is the alias's digest; `plaintext` only when it was stored unhashed. */
export const aliasAnswer = z.looseObject({ userId: z.string(), alias: z.string(), plaintext: z.string().nullable() });

export const userSummaryAnswer = z.looseObject({
  userId: z.string(),
  aliases: z.array(z.string().nullable()),
  aliasCount: z.number(),
  credentialsCount: z.number(),
  lastUsedAt: timestamp().nullable(),
});

export const authConfigAnswer = z.looseObject({
  purpose: z.string(),
  timeToLive: z.number().describe('seconds'),
  userVerificationRequirement: z.string(),
  extensions: z.looseObject({}).describe('The WebAuthn extensions its sign-ins ask for (an extension: prf, largeBlob).'),
  createdBy: z.string().nullable(),
  createdOn: timestamp().nullable(),
  editedBy: z.string().nullable(),
  editedOn: timestamp().nullable(),
  lastUsedOn: timestamp().nullable(),
});

export const eventPageAnswer = z.looseObject({
  tenantId: z.string(),
  events: z.array(z.looseObject({ id: z.string(), performedAt: timestamp(), message: z.string(), eventType: z.string() })),
  totalEventCount: z.number(),
  next: z.string().nullable().describe('pass as `after` for the following page; null when this page was not full'),
});

export const appFeaturesAnswer = z.looseObject({
  eventLoggingIsEnabled: z.boolean(),
  eventLoggingRetentionPeriod: z.number(),
  developerLoggingEndsAt: z.null(),
  magicLinkEmailMonthlyQuota: z.number(),
  maxUsers: z.number().nullable(),
  allowAttestation: z.boolean(),
  isGenerateSignInTokenEndpointEnabled: z.boolean(),
  isMagicLinksEnabled: z.boolean(),
  plan: z.string(),
  allowedOrigins: z.array(z.string()),
  sdkCompatibleLists: z.boolean(),
});

export const createdAppAnswer = z.looseObject({ message: z.string(), apiKey1: z.string(), apiKey2: z.string(), apiSecret1: z.string(), apiSecret2: z.string() });

export const appSummaryAnswer = z.looseObject({ appId: z.string(), adminEmail: z.string(), plan: z.string(), createdAt: timestamp(), frozen: z.boolean(), deleteAt: timestamp().nullable() });

export const apiKeyAnswer = z.looseObject({
  id: z.string(),
  createdAt: timestamp(),
  apiKey: z.string().describe('public keys in full, secrets masked'),
  type: z.union([z.literal(1), z.literal(2)]),
  kind: z.enum(['public', 'secret']),
  scopes: z.array(z.string()),
  isLocked: z.boolean(),
  lastLockedAt: timestamp().nullable(),
  lastUnlockedAt: timestamp().nullable(),
});

export const deletionAnswer = z.looseObject({ message: z.string(), isDeleted: z.boolean(), deleteAt: timestamp(), adminEmails: z.array(z.string()) });

export const deletionScheduleAnswer = z.looseObject({ message: z.string(), keysFreezeAt: timestamp(), deleteAt: timestamp() });

export const messageAnswer = z.looseObject({ message: z.string() });

export const authenticatorListEntryAnswer = z.looseObject({ aaGuid: z.string(), createdAt: timestamp() });

export const metadataEntryAnswer = z.looseObject({
  aaGuid: z.string(),
  name: z.string(),
  certificationStatuses: z.array(z.string()),
  attestationTypes: z.array(z.string()),
  icon: z.string().nullable().describe('a data: URL'),
});

const day = () => z.string().describe('yyyy-MM-dd (UTC)');

export const credentialsReportAnswer = z.looseObject({ createdAt: day(), users: z.number(), credentials: z.number() });

export const activeUsersReportAnswer = z.looseObject({ createdAt: day(), dailyActiveUsers: z.number(), weeklyActiveUsers: z.number(), totalUsers: z.number() });

const healthResult = z.looseObject({ status: z.enum(['Healthy', 'Unhealthy']), elapsedMilliseconds: z.number(), data: z.record(z.string(), z.unknown()) });
export const healthReportAnswer = z.looseObject({ status: z.enum(['Healthy', 'Unhealthy']), elapsedMilliseconds: z.number(), results: z.record(z.string(), healthResult) });

/** A webhook endpoint, as both APIs answer it: never its secret. */
export const webhookAnswer = z.looseObject({
  id: z.string(),
  url: z.string(),
  eventTypes: z.array(z.string()),
  description: z.string(),
  enabled: z.boolean(),
  disabledReason: z.string().nullable(),
  createdAt: timestamp(),
  previousSecretExpiresAt: timestamp().nullable(),
});

/** A new endpoint with its signing secret, which is shown only here. */
export const createdWebhookAnswer = webhookAnswer.extend({ secret: z.string().describe('whsec_…: shown only once') });

/** A rotated secret, shown only here; the previous one keeps signing beside it until previousSecretExpiresAt. */
export const rotatedWebhookSecretAnswer = z.looseObject({ id: z.string(), secret: z.string(), previousSecretExpiresAt: timestamp() });

/** One delivery of an endpoint's log, with its attempts. */
export const webhookDeliveryAnswer = z.looseObject({
  id: z.string().describe("the delivery's id (what redeliver names)"),
  webhookId: z.string().describe('the webhook-id the receiver sees: the delivery id, or for a replay the webhook-id of the event it replays'),
  eventType: z.string(),
  state: z.enum(['pending', 'delivered', 'failed']),
  createdAt: timestamp(),
  attempts: z.number().int(),
  nextAttemptAt: timestamp().nullable(),
  lastStatus: z.number().int().nullable(),
  lastError: z.string().nullable(),
  attemptLog: z.array(z.looseObject({ at: timestamp(), status: z.number().int().nullable(), error: z.string().nullable(), durationMs: z.number().int() })),
});
