/**
 * The one error-code dictionary. Every problem body the service writes takes its status and
 * title from here. Codes shared with the reference service keep its names (docs/api.md lists them).
 * A code the reference answers with two statuses lists the second in `otherStatuses`; only those
 * may be chosen instead of `status`.
 */
export const ERROR_CODES = {
  // request shape
  bad_request: { status: 400, title: 'The request could not be understood.' },
  invalid_json: { status: 400, title: 'The request body is not valid JSON.' },
  validation_failed: { status: 400, title: 'One or more validation errors occurred.' },
  payload_too_large: { status: 413, title: 'The request body is too large.' },
  headers_too_large: { status: 431, title: 'The request line or headers are too large.' },
  request_timeout: { status: 408, title: 'The request was not received in time.' },
  unsupported_media_type: { status: 415, title: 'The request body must be JSON (Content-Type: application/json).' },
  not_found: { status: 404, title: 'The requested resource does not exist.' },
  method_not_allowed: { status: 405, title: 'This method is not allowed on this resource.' },
  // authentication
  ApiSecret: { status: 401, title: "A valid 'ApiSecret' header is required." },
  ApiKey: { status: 401, title: "A valid 'ApiKey' header is required." },
  ManagementKey: { status: 401, title: "A valid 'ManagementKey' header is required." },
  metrics_token: { status: 401, title: "A valid 'Authorization: Bearer <METRICS_TOKEN>' header is required." },
  forbidden: { status: 403, title: 'You are forbidden from accessing this resource.' },
  // tokens
  missing_token: { status: 400, title: 'This operation requires a token to be passed.' },
  invalid_token: { status: 400, title: 'The token you supplied was not valid.' },
  invalid_token_format: { status: 400, title: 'The token you supplied was not formatted correctly. It should be valid base64url.' },
  expired_token: { status: 403, title: 'The token has expired.' },
  token_already_used: { status: 400, title: 'This token was already verified. Tokens are single-use.' },
  proof_already_used: { status: 409, title: 'This proof of the user was already spent on a registration token.' },
  // registration and sign-in
  missing_userid: { status: 400, title: 'The token does not contain a valid userId.' },
  invalid_attestation: { status: 400, title: 'Attestation type not supported' },
  // 403 on the authenticator allow and block lists (/authenticators/*), as the reference answers there.
  attestation_not_supported_on_plan: { status: 400, otherStatuses: [403], title: 'Attestation type not supported on your plan' },
  max_users_reached: { status: 400, title: 'Maximum number of users reached' },
  alias_conflict: { status: 409, title: 'Alias is already in use by another userid' },
  missing_origin: { status: 400, title: 'Origin is required.' },
  origin_not_allowed: { status: 400, title: 'This origin or RP ID is not allowed for this application.' },
  fido2_invalid_registration: { status: 400, title: 'The passkey registration could not be verified.' },
  conditional_create_not_allowed: { status: 400, title: 'This registration token cannot be begun as a conditional create.' },
  credential_already_registered: { status: 400, title: 'This passkey is already registered.' },
  unknown_credential: { status: 400, title: "We don't recognize the passkey you sent us." },
  credential_not_found: { status: 404, title: 'The passkey was not found.' },
  signin_complete_error: { status: 400, title: 'The passkey sign-in could not be verified.' },
  invalid_session: { status: 400, title: 'The session is not valid for this operation.' },
  challenge_already_used: { status: 400, title: 'This ceremony was already completed or has expired. Start again.' },
  generate_token_disabled: { status: 403, title: "The 'POST /signin/generate-token' endpoint is disabled" },
  unknown_purpose: { status: 400, title: 'There is no authentication configuration for this purpose.' },
  // authenticators (FIDO metadata, allow and block lists)
  authenticator_not_allowed: { status: 400, title: 'The authenticator is not allowed to be used for registration.' },
  attestation_required: {
    status: 400,
    title: "Attestation 'none' was used for registration, but an allowlist was configured. Please use a supported attestation method.",
  },
  unknown_authenticator: { status: 400, title: 'One or more authenticators do not exist in the FIDO2 MDS.' },
  // magic links
  magic_links_disabled: {
    status: 403,
    title: 'You must enable Magic Links in settings in order to use this feature.',
    detail: "Enable them with POST /apps/features {\"enableMagicLinks\": true} (ApiSecret), or the management API's features (isMagicLinksEnabled).",
  },
  magic_link_email_admin_address_only: { status: 403, title: 'New applications can only request magic links to the admin email address.' },
  magic_link_email_quota_exceeded: { status: 429, title: 'You have reached your monthly quota for magic link emails. Please try again later.' },
  mail_delivery_failed: { status: 502, title: 'The email could not be delivered to the mail server. Nothing was sent; try again later.' },
  // authentication configurations
  auth_config_already_exists: { status: 409, title: 'This authentication configuration already exists.' },
  auth_config_not_found: { status: 404, title: 'This authentication configuration does not exist.' },
  auth_config_not_deletable: { status: 400, title: 'This built-in authentication configuration cannot be deleted.' },
  // event log
  event_logging_disabled: {
    status: 403,
    title: 'Event logging is not enabled for this application.',
    detail: "Enable it with the management API's features (eventLoggingIsEnabled).",
  },
  // management
  app_not_found: { status: 404, title: 'App was not found.' },
  app_already_exists: { status: 409, title: 'This app id is not available.' },
  app_id_reserved: { status: 403, title: 'This app id is reserved.' },
  app_pending_deletion: { status: 409, title: 'App is already pending to be deleted.' },
  app_not_pending_deletion: { status: 409, title: 'App was not scheduled for deletion.' },
  api_key_not_found: { status: 404, title: 'Apikey was not found' },
  create_api_key_scopes_required: { status: 400, title: 'Please select at least one scope.' },
  // webhooks
  webhook_limit_reached: { status: 409, title: 'This app already has as many webhook endpoints as it may (10).' },
  webhook_not_found: { status: 404, title: 'This app has no webhook endpoint with this id.' },
  webhook_url_not_allowed: { status: 400, title: 'This webhook URL is not allowed.' },
  webhook_delivery_not_found: { status: 404, title: 'This app has no webhook delivery with this id.' },
  webhook_pending_limit_reached: { status: 409, title: 'This endpoint already has as many pending deliveries as a test event or a replay may wait behind (100).' },
  webhook_outbox_quota_exceeded: { status: 429, title: "This app's webhook outbox is full: it has as many pending deliveries as it may." },
  // the operator console
  operator_exists: { status: 409, title: 'This address is an operator already.' },
  invite_invalid: { status: 400, title: 'This invite is not valid: it expired, was used, or was not made by this console.' },
  console_form_refused: { status: 403, title: 'This form was not sent from a page of this console, or the page is too old. Reload it and try again.' },
  console_step_up_required: { status: 401, title: 'Confirm it is you with your passkey first.' },
  // abuse
  rate_limited: { status: 429, title: 'Too many requests. Try again later.' },
  // server side
  service_unavailable: { status: 503, title: 'The service is temporarily unavailable.' },
  internal_error: { status: 500, title: 'The api has encountered an error' },
} as const satisfies Record<string, { status: number; otherStatuses?: readonly number[]; title: string; detail?: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

/** Every status a code may be answered with: its own first, then any other the dictionary lists. */
export function statusesOf(code: ErrorCode): readonly number[] {
  const entry = ERROR_CODES[code] as { status: number; otherStatuses?: readonly number[] };
  return [entry.status, ...(entry.otherStatuses ?? [])];
}
