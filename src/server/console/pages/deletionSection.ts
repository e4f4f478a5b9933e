import type { Request } from 'express';
import { form, when } from '../consoleForms';
import { html, type Html } from '../html';

/** What the apps list says of the app's deletion. */
export interface DeletionState {
  adminEmail: string;
  deleteAt: string | null;
}

/** Scheduling or cancelling the app's deletion (the spec's 24 hours and 14 days), and deleting it at once (a step-up and its id typed). */
export function deletionSection(req: Request, settingsPath: string, appId: string, state: DeletionState): Html {
  const schedule = state.deleteAt
    ? html`<p class="notice error" data-deletion-scheduled>This app is scheduled for deletion: its data is deleted at ${when(state.deleteAt)}.</p>
${form(req, `${settingsPath}/deletion/cancel`, html`<button type="submit" data-cancel-deletion>Cancel the deletion</button>`)}`
    : html`<p>Scheduling the deletion freezes the app's keys after 24 hours and deletes all of its data after 14 days. Its admin (${state.adminEmail}) is mailed a link that cancels it.</p>
${form(req, `${settingsPath}/deletion/schedule`, html`<button type="submit" class="danger" data-schedule-deletion>Schedule the deletion</button>`, { confirm: `Schedule the deletion of ${appId}?` })}`;
  const now = form(
    req,
    `${settingsPath}/delete`,
    html`<label>Type the app's id to confirm <input name="confirmAppId" required autocomplete="off" pattern="${appId}"></label> <button type="submit" class="danger" data-delete-app>Delete now</button>`,
    { stepUp: true, confirm: `Delete ${appId} and all of its users, passkeys and events now? This cannot be undone.` },
  );
  return html`<section class="card" id="deletion"><h2>Deletion</h2>
${schedule}
<h3>Delete now</h3>
<p>Deletes the app and every row of it at once, without a warning to its admin. It needs a passkey confirmation.</p>
${now}</section>`;
}
