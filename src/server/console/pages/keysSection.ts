import type { Request } from 'express';
import { PUBLIC_SCOPES, SECRET_SCOPES, SCOPES, type KeyKind } from '../../services/apps/apiKeys';
import type { AppsService } from '../../services/apps/apps';
import { form, when } from '../consoleForms';
import { html, type Html } from '../html';

type ListedKey = Awaited<ReturnType<AppsService['listKeys']>>[number];

/** The checkboxes of one kind's scopes, each with what it lets a key do; all ticked, as keys made with an app have every scope. */
function scopeBoxes(kind: KeyKind): Html {
  const names = kind === 'public' ? PUBLIC_SCOPES : SECRET_SCOPES;
  return html`<fieldset class="scopes"><legend>Scopes</legend>${names.map(
    (scope) => html`<label title="${SCOPES[scope]}"><input type="checkbox" name="scopes" value="${scope}" checked> ${scope}</label>`,
  )}</fieldset>`;
}

/** The app's keys (secrets masked: only their ids are known), lock, unlock, delete, and making one of either kind. */
export function keysSection(req: Request, settingsPath: string, keys: ListedKey[]): Html {
  const rows = keys.map(
    (key) => html`<tr data-key="${key.id}"><td><code>${key.id}</code></td><td>${key.kind}</td><td class="scopes">${key.scopes.join(', ')}</td><td>${when(key.createdAt)}</td>
<td>${key.isLocked ? html`<span class="badge danger">locked</span> ${when(key.lastLockedAt)}` : html`<span class="badge">active</span>`}</td>
<td>${form(req, `${settingsPath}/keys/${key.isLocked ? 'unlock' : 'lock'}`, html`<input type="hidden" name="keyId" value="${key.id}"><button type="submit" data-${key.isLocked ? 'unlock' : 'lock'}>${key.isLocked ? 'Unlock' : 'Lock'}</button>`)}
${form(req, `${settingsPath}/keys/delete`, html`<input type="hidden" name="keyId" value="${key.id}"><button type="submit" class="danger" data-delete-key>Delete</button>`, { stepUp: true, confirm: `Delete the ${key.kind} key ${key.id}? Whatever uses it stops working.` })}</td></tr>`,
  );
  const create = (kind: KeyKind) =>
    form(
      req,
      `${settingsPath}/keys/create`,
      html`<input type="hidden" name="kind" value="${kind}"><h3>A ${kind} key</h3>${scopeBoxes(kind)}<button type="submit" data-create-key="${kind}">Create a ${kind} key</button>`,
      { className: 'stack' },
    );
  return html`<section class="card" id="keys"><h2>Keys</h2>
<table data-keys><thead><tr><th>Id</th><th>Kind</th><th>Scopes</th><th>Created</th><th>State</th><th></th></tr></thead><tbody>${rows}</tbody></table>
<p class="hint">A key's id is its last four characters. A secret is stored only as a digest: it is shown once, when it is made. A locked key is refused until it is unlocked; deleting one needs a passkey confirmation.</p>
<div class="columns">${create('public')}${create('secret')}</div></section>`;
}
