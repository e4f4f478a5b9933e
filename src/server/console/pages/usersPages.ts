import { z } from 'zod';
import { ciObject, customerUserId, unstorable } from '../../core/validation';
import { userCursorParameter, type UserView } from '../../services/users/users';
import type { ConsoleContext } from '../consoleContext';
import { form, nextPageLink, when } from '../consoleForms';
import { setNotice } from '../consoleNotice';
import { backPath, by, type ConsoleRoutes } from '../consoleRoutes';
import { html } from '../html';
import { layout } from '../layout';
import { appOf } from './appOf';
import { parseForm } from './parseForm';

const PAGE_SIZE = 50;

/** A userId as the API takes one (1 to 64 bytes), and text a store can keep. */
const userId = () => customerUserId().refine((v) => unstorable(v) === undefined, 'must be well-formed text without NUL characters');

/** The users page's query: `q`, a userId prefix (empty: every user), and `after`, the `next` of a page. */
const usersQuerySchema = ciObject({
  q: z.preprocess((v) => (v === undefined ? '' : v), z.string({ message: 'must be text' }).refine((v) => Buffer.byteLength(v, 'utf8') <= 64, 'must be at most 64 bytes').refine((v) => unstorable(v) === undefined, 'must be well-formed text without NUL characters')),
  after: userCursorParameter(),
});
const userParamsSchema = ciObject({ userId: userId() });
const revokeUserSchema = ciObject({ userId: userId() });
const deleteCredentialSchema = ciObject({ userId: userId(), credentialId: z.string().min(1, 'is required').max(1400, 'is too long') });

/** The plain-text aliases of a user, and how many are kept only as hashes. */
function aliasesOf(user: UserView) {
  const plain = user.aliases.filter((alias): alias is string => alias !== null);
  const hashed = user.aliasCount - plain.length;
  return html`${plain.join(', ')}${hashed > 0 && html` <span class="hint">${plain.length > 0 ? '+ ' : ''}${hashed} hashed</span>`}`;
}

/**
 * An app's users (paged by key, searchable by userId prefix) and revoking one (the lost-device
 * button: every passkey and alias gone); a user's passkeys and deleting one. Both deletions go
 * through the API's own services (the same webhooks and events) and need a step-up.
 */
export function usersPages(ctx: ConsoleContext, routes: ConsoleRoutes): void {
  const { base, services } = ctx;
  const appPath = (appId: string) => `${base}/apps/${encodeURIComponent(appId)}`;
  const userPath = (appId: string, id: string) => `${appPath(appId)}/users/${encodeURIComponent(id)}`;

  routes.page(`${base}/apps/:appId/users`, async (req, res, operator) => {
    const { appId } = await appOf(ctx, req);
    const { q, after } = parseForm(usersQuerySchema, req.query);
    const [page, count] = await Promise.all([q === '' ? services.users.page(appId, after, PAGE_SIZE) : services.users.search(appId, q, after, PAGE_SIZE), services.users.count(appId)]);
    const rows = page.values.map(
      (user) => html`<tr data-user="${user.userId}"><td><a href="${userPath(appId, user.userId)}">${user.userId}</a></td><td>${aliasesOf(user)}</td><td class="num">${user.credentialsCount}</td><td class="when">${when(user.lastUsedAt)}</td>
<td>${form(req, `${appPath(appId)}/users/revoke`, html`<input type="hidden" name="userId" value="${user.userId}"><button type="submit" class="danger">Revoke</button>`, { stepUp: true, confirm: `Revoke ${user.userId}? Every passkey and alias of this user is deleted: they sign in again only by registering anew.` })}</td></tr>`,
    );
    const body = html`<form method="get" action="${appPath(appId)}/users" class="filters"><label>userId starts with <input name="q" value="${q}" maxlength="64" autocomplete="off"></label> <button type="submit">Search</button>${q !== '' && html` <a href="${appPath(appId)}/users">Every user</a>`}</form>
<p class="hint">${count} users with a passkey. Revoke is for a lost device: every passkey and alias of the user is deleted, and the app's <code>user.deleted</code> webhook is sent.</p>
<p class="error" data-error hidden></p>
<table data-users><thead><tr><th>userId</th><th>Aliases</th><th class="num">Passkeys</th><th>Last used</th><th></th></tr></thead><tbody>${rows}</tbody></table>
${page.values.length === 0 && html`<p>${q === '' ? 'No users here.' : 'No users with this prefix here.'}</p>`}
${nextPageLink(`${appPath(appId)}/users`, page.next, { q })}`;
    res.type('html').send(layout(ctx, req, { title: 'Users', body, operator, appId }));
  });

  routes.page(`${base}/apps/:appId/users/:userId`, async (req, res, operator) => {
    const { appId } = await appOf(ctx, req);
    const { userId: id } = parseForm(userParamsSchema, { userId: req.params.userId });
    const credentials = await services.credentials.list(appId, id);
    const rows = credentials.map(
      (c) => html`<tr data-credential="${c.descriptor.id}"><td>${c.authenticatorName ?? html`<span class="hint">unknown</span>`}</td><td>${c.device || '—'}</td><td>${c.nickname || '—'}</td>
<td>${c.backupState ? 'synced' : c.isBackupEligible ? 'can sync, not yet' : 'this device only'}</td><td class="when">${when(c.createdAt)}</td><td class="when">${when(c.lastUsedAt)}</td><td class="num">${c.signatureCounter}</td>
<td><code class="id">${c.descriptor.id}</code></td>
<td>${form(req, `${appPath(appId)}/credentials/delete`, html`<input type="hidden" name="userId" value="${id}"><input type="hidden" name="credentialId" value="${c.descriptor.id}"><button type="submit" class="danger">Delete</button>`, { stepUp: true, confirm: `Delete this passkey of ${id}? It no longer signs in.` })}</td></tr>`,
    );
    const body = html`<p><a href="${appPath(appId)}/users">All users</a></p>
<p class="error" data-error hidden></p>
<table data-credentials><thead><tr><th>Provider</th><th>Device</th><th>Nickname</th><th>Backup</th><th>Created</th><th>Last used</th><th class="num">Counter</th><th>Credential id</th><th></th></tr></thead><tbody>${rows}</tbody></table>
${credentials.length === 0 && html`<p>This user has no passkeys.</p>`}`;
    res.type('html').send(layout(ctx, req, { title: `User ${id}`, body, operator, appId }));
  });

  routes.action(`${base}/apps/:appId/users/revoke`, { stepUp: true }, async (req, res, operator) => {
    const { appId } = await appOf(ctx, req);
    const { userId: id } = parseForm(revokeUserSchema, req.body);
    await services.users.delete(appId, id, by(operator));
    routes.record(operator, appId, `The user ${id} was revoked: every passkey and alias deleted.`);
    setNotice(req, { kind: 'ok', text: `${id} was revoked: every passkey and alias of the user is deleted.` });
    res.redirect(303, backPath(ctx, req));
  });

  routes.action(`${base}/apps/:appId/credentials/delete`, { stepUp: true }, async (req, res, operator) => {
    const { appId } = await appOf(ctx, req);
    const { userId: id, credentialId } = parseForm(deleteCredentialSchema, req.body);
    await services.credentials.delete(appId, credentialId, by(operator));
    routes.record(operator, appId, `The passkey ${credentialId} was deleted.`);
    setNotice(req, { kind: 'ok', text: 'The passkey was deleted.' });
    res.redirect(303, userPath(appId, id));
  });
}
