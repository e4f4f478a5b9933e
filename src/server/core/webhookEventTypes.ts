/**
 * The events an endpoint may subscribe to, in dotted form (Standard Webhooks' habit). One list:
 * the endpoints' validation, the OpenAPI document and the services that emit them read it.
 * `webhook.test` is sent only on request (the test route), to the one endpoint named.
 */
export const WEBHOOK_EVENT_TYPES = [
  'passkey.registered',
  'passkey.deleted',
  'passkey.renamed',
  'user.deleted',
  'aliases.updated',
  'signin.completed',
  'signin.verified',
  'magic_link.sent',
  'app.deletion_scheduled',
  'app.deletion_cancelled',
  'authenticators.updated',
  'webhook.test',
] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** Endpoints an app may have at most. */
export const MAX_WEBHOOK_ENDPOINTS = 10;

/** A test event or a replay is queued to an endpoint only while it has fewer pending deliveries than this. */
export const MAX_PENDING_FOR_REQUESTED_SENDS = 100;
