import type { Request } from 'express';
import { formatTimeSpan } from '../../../shared/timeSpan';
import { USER_VERIFICATIONS } from '../../../shared/vocabulary';
import type { AuthConfigService } from '../../services/authConfigs';
import { form, when } from '../consoleForms';
import { html, type Html } from '../html';

type ListedConfig = Awaited<ReturnType<AuthConfigService['list']>>[number];

/** The built-in purposes: edited like the others, never deleted (the service refuses it too). */
const BUILT_IN = new Set(['sign-in', 'step-up']);

/** The fields an authentication configuration is added or edited with (the purpose is fixed once made). */
function configFields(config: ListedConfig | undefined): Html {
  const uv = config?.userVerificationRequirement ?? 'preferred';
  return html`<label>Time to live (hh:mm:ss or d.hh:mm:ss) <input name="timeToLive" required value="${formatTimeSpan(config?.timeToLive ?? 120)}" pattern="(\\d{1,7}\\.)?\\d{1,2}:\\d{2}:\\d{2}"></label>
<label>User verification <select name="userVerificationRequirement">${USER_VERIFICATIONS.map((v) => html`<option value="${v}"${v === uv && html` selected`}>${v}</option>`)}</select></label>
<label><input type="checkbox" name="prf"${config?.extensions.prf && html` checked`}> PRF extension</label>
<label><input type="checkbox" name="largeBlob"${config?.extensions.largeBlob === 'read' && html` checked`}> Read the large blob</label>`;
}

/** The app's authentication configurations (purposes): the list, adding, editing, deleting. */
export function authConfigsSection(req: Request, settingsPath: string, configs: ListedConfig[]): Html {
  const rows = configs.map((config) => {
    const extensions = [config.extensions.prf && 'prf', config.extensions.largeBlob && `largeBlob: ${config.extensions.largeBlob}`].filter(Boolean).join(', ');
    return html`<tr data-auth-config="${config.purpose}"><td><code>${config.purpose}</code></td><td>${formatTimeSpan(config.timeToLive)}</td><td>${config.userVerificationRequirement}</td><td>${extensions || '—'}</td>
<td>${config.createdBy}<br>${when(config.createdOn)}</td><td>${config.editedBy ?? '—'}<br>${config.editedOn && when(config.editedOn)}</td><td>${when(config.lastUsedOn)}</td>
<td><details><summary>Edit</summary>${form(req, `${settingsPath}/auth-configs/edit`, html`<input type="hidden" name="purpose" value="${config.purpose}">${configFields(config)}<button type="submit">Save</button>`, { className: 'stack' })}</details>
${!BUILT_IN.has(config.purpose) && form(req, `${settingsPath}/auth-configs/delete`, html`<input type="hidden" name="purpose" value="${config.purpose}"><button type="submit" class="danger">Delete</button>`, { confirm: `Delete the configuration ${config.purpose}? Sign-ins that name it are refused.` })}</td></tr>`;
  });
  return html`<section class="card" id="auth-configs"><h2>Authentication configurations</h2>
<table data-auth-configs><thead><tr><th>Purpose</th><th>Time to live</th><th>User verification</th><th>Extensions</th><th>Created</th><th>Edited</th><th>Last used</th><th></th></tr></thead><tbody>${rows}</tbody></table>
<details><summary>Add a configuration</summary>${form(
    req,
    `${settingsPath}/auth-configs/add`,
    html`<label>Purpose (letters, digits, - and _) <input name="purpose" required maxlength="255" pattern="[A-Za-z0-9_\\-]+"></label>${configFields(undefined)}<button type="submit">Add</button>`,
    { className: 'stack' },
  )}</details></section>`;
}
