import type { Request } from 'express';
import { ApiError } from '../../core/apiError';
import { addAuthenticatorsSchema, removeAuthenticatorsSchema } from '../../services/authenticators/authenticatorLists';
import type { ConsoleContext } from '../consoleContext';
import { form, nextPageLink, when } from '../consoleForms';
import { setNotice } from '../consoleNotice';
import { backPath, by, type ConsoleRoutes } from '../consoleRoutes';
import { html, type Html } from '../html';
import { layout } from '../layout';
import { appOf } from './appOf';
import { entriesAfter } from './entriesAfter';
import { parseForm } from './parseForm';

const PAGE_SIZE = 50;
const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** A certification status as the FIDO metadata spells them (FIDO_CERTIFIED_L1, REVOKED, ...). */
const STATUS = /^[A-Za-z0-9_]{1,64}$/;

type Listed = { aaGuid: string; createdAt: string };

/** A query parameter given once, or undefined; repeated or malformed is the API's 400. */
function queryValue(req: Request, name: string, pattern: RegExp, what: string): string | undefined {
  const value = req.query[name];
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string' || !pattern.test(value)) throw new ApiError('validation_failed', { detail: `${name} must be ${what}.` });
  return value;
}

/**
 * An app's authenticator allow list and block list, and the FIDO metadata's authenticators to put
 * on them, filtered by certification status and paged by key (name, then AAGUID). The lists exist
 * only on a plan with attestation: the service's refusal is shown in their place, and an add or a
 * remove on another plan shows the service's error.
 */
export function authenticatorsPages(ctx: ConsoleContext, routes: ConsoleRoutes): void {
  const { base, services } = ctx;
  const pathOf = (appId: string) => `${base}/apps/${encodeURIComponent(appId)}/authenticators`;

  routes.page(`${base}/apps/:appId/authenticators`, async (req, res, operator) => {
    const { appId } = await appOf(ctx, req);
    const status = queryValue(req, 'status', STATUS, 'a certification status (letters, digits and _)');
    const after = queryValue(req, 'after', GUID, 'an AAGUID');
    const path = pathOf(appId);
    const catalog = await services.metadata.catalog();
    const nameOf = (aaGuid: string) => catalog?.entryOf(aaGuid)?.description ?? 'not in the metadata';

    // Both lists, or why the app has none (its plan): the service's own answer.
    let lists: { allowed: Listed[]; blocked: Listed[] } | undefined;
    let refusal: string | undefined;
    try {
      lists = { allowed: await services.authenticators.list(appId, true), blocked: await services.authenticators.list(appId, false) };
    } catch (error) {
      if (!(error instanceof ApiError) || error.code !== 'attestation_not_supported_on_plan') throw error;
      refusal = `${error.message} ${error.detail ?? ''}`.trim();
    }
    const listedAs = new Map<string, 'allowed' | 'blocked'>([...(lists?.allowed ?? []).map((e) => [e.aaGuid, 'allowed'] as const), ...(lists?.blocked ?? []).map((e) => [e.aaGuid, 'blocked'] as const)]);

    const removeButton = (aaGuid: string) => form(req, `${path}/remove`, html`<input type="hidden" name="aaGuid" value="${aaGuid}"><button type="submit">Remove</button>`);
    const addButton = (aaGuid: string, isAllowed: boolean) =>
      form(req, `${path}/add`, html`<input type="hidden" name="aaGuid" value="${aaGuid}"><input type="hidden" name="isAllowed" value="${isAllowed ? 'true' : 'false'}"><button type="submit">${isAllowed ? 'Allow' : 'Block'}</button>`);
    const listTable = (name: string, entries: Listed[], empty: string): Html =>
      entries.length === 0
        ? html`<p class="hint" data-list="${name}">${empty}</p>`
        : html`<table data-list="${name}"><thead><tr><th>Authenticator</th><th>AAGUID</th><th>Since</th><th></th></tr></thead><tbody>${entries.map(
            (e) => html`<tr data-aaguid="${e.aaGuid}"><td>${nameOf(e.aaGuid)}</td><td><code>${e.aaGuid}</code></td><td>${when(e.createdAt)}</td><td>${removeButton(e.aaGuid)}</td></tr>`,
          )}</tbody></table>`;

    const lastShown = after && catalog?.entryOf(after);
    const page = entriesAfter(catalog?.list(status ? { certificationStatuses: [status] } : {}) ?? [], lastShown ? { name: lastShown.description, aaGuid: lastShown.aaguid } : undefined, PAGE_SIZE);
    const entryRow = (entry: (typeof page.values)[number]) => {
      const on = listedAs.get(entry.aaGuid);
      return html`<tr data-aaguid="${entry.aaGuid}"><td>${entry.icon && html`<img class="mds-icon" src="${entry.icon}" alt=""> `}${entry.name}</td><td><code>${entry.aaGuid}</code></td><td>${entry.certificationStatuses.map((s) => html`<span class="badge">${s}</span> `)}</td>
<td>${entry.attestationTypes.join(', ')}</td><td>${on ? html`<span class="badge">${on}</span> ${removeButton(entry.aaGuid)}` : html`${addButton(entry.aaGuid, true)} ${addButton(entry.aaGuid, false)}`}</td></tr>`;
    };
    const statuses = catalog?.certificationStatuses ?? [];
    const filter = html`<form method="get" action="${path}" class="filters" data-status-filter><label>Certification status <select name="status"><option value="">any</option>${statuses.map(
      (s) => html`<option value="${s}"${s === status ? ' selected' : ''}>${s}</option>`,
    )}</select></label> <button type="submit">Filter</button></form>`;

    const body = html`${
      refusal
        ? html`<p class="notice error" data-plan-refusal>${refusal}</p>`
        : html`<section class="card"><h2>Allow list</h2><p class="hint">When it holds any authenticator, only those may register.</p>${listTable('allowed', lists!.allowed, 'Empty: every authenticator may register (unless blocked).')}</section>
<section class="card"><h2>Block list</h2>${listTable('blocked', lists!.blocked, 'Empty.')}</section>`
    }
<section class="card"><h2>FIDO metadata</h2>
${
  catalog
    ? html`<p class="hint">${catalog.size} FIDO2 authenticators in the metadata BLOB no. ${catalog.blob.no} (next update ${catalog.blob.nextUpdate}).</p>
${filter}
${page.values.length === 0 ? html`<p class="hint" data-entries-empty>No authenticator${status ? html` with the status <code>${status}</code>` : ''}.</p>` : html`<table data-entries><thead><tr><th>Authenticator</th><th>AAGUID</th><th>Certification</th><th>Attestation</th><th></th></tr></thead><tbody>${page.values.map(entryRow)}</tbody></table>`}
${nextPageLink(path, page.next, { status })}`
    : html`<p>No FIDO metadata is loaded (MDS_BLOB_FILE or MDS_URL), so no authenticator can be put on a list.</p>`
}</section>`;
    res.type('html').send(layout(ctx, req, { title: 'Authenticators', body, operator, appId }));
  });

  routes.action(`${base}/apps/:appId/authenticators/add`, {}, async (req, res, operator) => {
    const { appId } = await appOf(ctx, req);
    const input = parseForm(addAuthenticatorsSchema, { aaGuids: [req.body.aaGuid], isAllowed: req.body.isAllowed });
    await services.authenticators.add(appId, input, by(operator));
    const list = input.isAllowed ? 'allow list' : 'block list';
    routes.record(operator, appId, `The authenticator ${input.aaGuids.join(', ')} was put on the ${list}.`);
    setNotice(req, { kind: 'ok', text: `Put on the ${list}.` });
    res.redirect(303, backPath(ctx, req));
  });

  routes.action(`${base}/apps/:appId/authenticators/remove`, {}, async (req, res, operator) => {
    const { appId } = await appOf(ctx, req);
    const input = parseForm(removeAuthenticatorsSchema, { aaGuids: [req.body.aaGuid] });
    await services.authenticators.remove(appId, input, by(operator));
    routes.record(operator, appId, `The authenticator ${input.aaGuids.join(', ')} was taken off its list.`);
    setNotice(req, { kind: 'ok', text: 'Taken off its list.' });
    res.redirect(303, backPath(ctx, req));
  });
}
