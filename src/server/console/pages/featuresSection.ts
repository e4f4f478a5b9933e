import type { Request } from 'express';
import { PLANS, type AppFeatures } from '../../services/apps/apps';
import { form } from '../consoleForms';
import { html, type Html } from '../html';

const box = (name: keyof AppFeatures, on: boolean, label: string) => html`<label><input type="checkbox" name="${name}"${on && html` checked`}> ${label}</label>`;

/** The app's features in one form (each field as the management API names it), and the plan in its own (a step-up). */
export function featuresSection(req: Request, settingsPath: string, features: AppFeatures): Html {
  const fields = html`<fieldset><legend>Sign-in ways</legend>
${box('isMagicLinksEnabled', features.isMagicLinksEnabled, 'Magic links (magic-links/send)')}
<label>Magic link mails per month <input type="number" name="magicLinkEmailMonthlyQuota" min="0" required value="${features.magicLinkEmailMonthlyQuota}"></label>
${box('isGenerateSignInTokenEndpointEnabled', features.isGenerateSignInTokenEndpointEnabled, 'Generated sign-in tokens (signin/generate-token)')}
</fieldset>
<fieldset><legend>Event log</legend>
${box('eventLoggingIsEnabled', features.eventLoggingIsEnabled, 'Event logging')}
<label>Kept for (days, 0 to 90) <input type="number" name="eventLoggingRetentionPeriod" min="0" max="90" required value="${features.eventLoggingRetentionPeriod}"></label>
</fieldset>
<fieldset><legend>Users and passkeys</legend>
<label>Most users (empty: no limit) <input type="number" name="maxUsers" min="0" value="${features.maxUsers ?? ''}"></label>
${box('allowAttestation', features.allowAttestation, 'Attestation (direct or indirect registrations, authenticator allow and block lists)')}
<label>Allowed origins, one per line (https://host[:port] or android:apk-key-hash:…) <textarea name="allowedOrigins" rows="4" spellcheck="false">${features.allowedOrigins.join('\n')}</textarea></label>
</fieldset>
${box('sdkCompatibleLists', features.sdkCompatibleLists, 'SDK-compatible lists ({values: [...]}, as the official SDKs read them)')}
<button type="submit" data-save-features>Save the features</button>`;
  const plan = html`<label>Plan <select name="plan">${PLANS.map((p) => html`<option value="${p}"${p === features.plan && html` selected`}>${p}</option>`)}</select></label>
<button type="submit" data-change-plan>Change the plan</button>`;
  return html`<section class="card" id="features"><h2>Features</h2>
${form(req, `${settingsPath}/features`, fields, { className: 'stack' })}</section>
<section class="card" id="plan"><h2>Plan</h2>
${form(req, `${settingsPath}/plan`, plan, { stepUp: true, confirm: 'Change the plan of this app?' })}
<p class="hint">The plan is now <strong>${features.plan}</strong>. Changing it needs a passkey confirmation.</p></section>`;
}
