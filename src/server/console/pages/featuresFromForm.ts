import { formChecked } from './formChecked';
import { formWholeNumber } from './formWholeNumber';

/** The entries of a one-per-line field, trimmed, blank lines left out (a list from a repeated field goes through as sent). */
function lines(value: unknown): unknown {
  if (value === undefined) return [];
  if (typeof value !== 'string') return value;
  return value
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '');
}

/**
 * The settings page's features form as the management API's `featuresPatchSchema` reads it: every
 * field is in the form, so an absent checkbox is off, an empty "most users" is no limit. The plan
 * has its own form (it needs a step-up). Nothing is judged here: the schema does that.
 */
export function featuresFromForm(body: Record<string, unknown>): Record<string, unknown> {
  const maxUsers = typeof body.maxUsers === 'string' && body.maxUsers.trim() === '' ? null : formWholeNumber(body.maxUsers);
  return {
    isMagicLinksEnabled: formChecked(body.isMagicLinksEnabled),
    magicLinkEmailMonthlyQuota: formWholeNumber(body.magicLinkEmailMonthlyQuota),
    isGenerateSignInTokenEndpointEnabled: formChecked(body.isGenerateSignInTokenEndpointEnabled),
    eventLoggingIsEnabled: formChecked(body.eventLoggingIsEnabled),
    eventLoggingRetentionPeriod: formWholeNumber(body.eventLoggingRetentionPeriod),
    maxUsers,
    allowAttestation: formChecked(body.allowAttestation),
    allowedOrigins: lines(body.allowedOrigins),
    sdkCompatibleLists: formChecked(body.sdkCompatibleLists),
  };
}
