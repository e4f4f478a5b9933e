/**
 * The event log's types, with the reference service's names where it has
 * one, and its severity names. Stored and answered as names.
 */
export const EVENT_TYPES = {
  ApiAuthUserRegistered: 'Informational',
  ApiAuthPasskeyRegistrationBegan: 'Informational',
  ApiAuthPasskeyRegistrationCompleted: 'Informational',
  ApiAuthInvalidSecretKeyUsed: 'Alert',
  ApiAuthInvalidPublicKeyUsed: 'Alert',
  ApiAuthDisabledSecretKeyUsed: 'Alert',
  ApiAuthDisabledPublicKeyUsed: 'Alert',
  ApiUserSetAliases: 'Informational',
  ApiUserDeleteCredential: 'Informational',
  ApiUserUpdateCredential: 'Informational',
  ApiUserSignInCompleted: 'Informational',
  ApiUserSignInVerified: 'Informational',
  ApiUserDeleted: 'Informational',
  ApiUserSigninTokenCreated: 'Informational',
  ApiUserMagicLinkCreated: 'Informational',
  ApiManagementAppCreated: 'Informational',
  ApiManagementAppFrozen: 'Alert',
  ApiManagementAppUnfrozen: 'Alert',
  ApiManagementAppMarkedForDeletion: 'Informational',
  ApiManagementAppDeletionCancelled: 'Informational',
  ApiManagementAppFrozenForDeletion: 'Alert',
  ApiManagementFeaturesChanged: 'Warning',
  ApiAuthenticatorsAllowlisted: 'Informational',
  ApiAuthenticatorsBlacklisted: 'Informational',
  ApiAuthenticatorsDelisted: 'Informational',
  ApiAuthenticationConfigurationCreated: 'Informational',
  ApiAuthenticationConfigurationUpdated: 'Informational',
  ApiAuthenticationConfigurationDeleted: 'Informational',
  AdminApiKeyCreated: 'Informational',
  AdminApiKeyDeleted: 'Informational',
  AdminApiKeyLocked: 'Informational',
  AdminApiKeyUnlocked: 'Informational',
  AdminGenerateSignInTokenEndpointEnabled: 'Alert',
  AdminGenerateSignInTokenEndpointDisabled: 'Alert',
  AdminMagicLinksEnabled: 'Alert',
  AdminMagicLinksDisabled: 'Alert',
  AdminEventLoggingRetentionChanged: 'Warning',
  // Ours: the operator console's own log (the console app's), beside the event each action records in its app.
  ConsoleOperatorInvited: 'Warning',
  ConsoleOperatorRemoved: 'Alert',
  ConsoleActionPerformed: 'Informational',
  // Ours: webhooks (the reference has none). The subject is the endpoint's id; never its URL, which may carry credentials.
  AdminWebhookCreated: 'Informational',
  AdminWebhookUpdated: 'Informational',
  AdminWebhookDeleted: 'Informational',
  AdminWebhookSecretRotated: 'Warning',
  AdminWebhookRedelivered: 'Informational',
  AdminWebhookTestSent: 'Informational',
} as const satisfies Record<string, 'Informational' | 'Warning' | 'Alert' | 'Error'>;

export type EventType = keyof typeof EVENT_TYPES;

/** Who acted when the caller did not say: the reference's wording. */
export const UNKNOWN_USER = 'Unknown User';
export const SYSTEM = 'System';
