import { APP_ID_PATTERN } from '../../../shared/apiKeys';
import { ApiError } from '../../core/apiError';
import { PLANS, createAppSchema } from '../../services/apps/apps';
import { CONSOLE_APP_ID } from '../consoleAppId';
import type { ConsoleContext } from '../consoleContext';
import { form, nextPageLink, when } from '../consoleForms';
import { by, type ConsoleRoutes } from '../consoleRoutes';
import { html } from '../html';
import { layout } from '../layout';
import { parseForm } from './parseForm';

const PAGE_SIZE = 50;

/** A checkbox's value in a posted form: present means on. */
const checked = (value: unknown) => value === 'on' || value === 'true';

/** The apps: a list with their user counts, and creating one (its keys shown once). */
export function appsPages(ctx: ConsoleContext, routes: ConsoleRoutes): void {
  const { base, services } = ctx;

  routes.page(`${base}/apps`, async (req, res, operator) => {
    const after = typeof req.query.after === 'string' ? req.query.after : '';
    // In id order from the cursor: the console's own app is the operators', not a tenant's.
    const apps = (await services.apps.list()).filter((app) => app.appId !== CONSOLE_APP_ID && app.appId > after).sort((a, b) => (a.appId < b.appId ? -1 : 1));
    const shown = apps.slice(0, PAGE_SIZE);
    const counts = await Promise.all(shown.map((app) => services.users.count(app.appId)));
    const rows = shown.map(
      (app, i) => html`<tr><td><a href="${base}/apps/${app.appId}">${app.appId}</a></td><td>${app.plan}</td><td class="num">${counts[i]}</td><td>${when(app.createdAt)}</td>
<td>${app.deleteAt ? html`<span class="badge danger">deleting ${when(app.deleteAt)}</span>` : app.frozen ? html`<span class="badge">frozen</span>` : ''}</td></tr>`,
    );
    const body = html`<table data-apps><thead><tr><th>App</th><th>Plan</th><th class="num">Users</th><th>Created</th><th></th></tr></thead><tbody>${rows}</tbody></table>
${nextPageLink(`${base}/apps`, apps.length > PAGE_SIZE ? shown[shown.length - 1].appId : null)}
<section class="card"><h2>Create an app</h2>
${form(
  req,
  `${base}/apps`,
  html`<label>App id <input name="appId" required pattern="[a-z][a-z0-9]{2,61}" data-availability="${base}/apps/available" autocomplete="off"></label> <span class="status" data-availability-status></span>
<label>Admin email <input type="email" name="adminEmail" required value="${operator.email}"></label>
<label>Plan <select name="plan">${PLANS.map((plan) => html`<option value="${plan}">${plan}</option>`)}</select></label>
<label>Most users (empty: no limit) <input type="number" name="maxUsers" min="0"></label>
<fieldset><legend>Features</legend>
<label><input type="checkbox" name="eventLoggingIsEnabled" checked> Event logging</label>
<label><input type="checkbox" name="isMagicLinksEnabled" checked> Magic links</label>
<label><input type="checkbox" name="isGenerateSignInTokenEndpointEnabled"> Generated sign-in tokens</label>
</fieldset>
<button type="submit">Create</button>`,
  { className: 'stack' },
)}</section>`;
    res.type('html').send(layout(ctx, req, { title: 'Apps', body, operator, page: 'apps' }));
  });

  // The create form's live check: whether an id is free (ids are public names, not secrets).
  routes.json(`${base}/apps/available`, async (req, res) => {
    const appId = typeof req.query.appId === 'string' ? req.query.appId : '';
    if (!APP_ID_PATTERN.test(appId)) {
      res.json({ available: false, reason: '3 to 62 lowercase letters and digits, starting with a letter.' });
      return;
    }
    res.json({ available: appId !== CONSOLE_APP_ID && (await services.apps.isAvailable(appId)), reason: null });
  });

  routes.action(`${base}/apps`, {}, async (req, res, operator) => {
    const appId = String(req.body.appId ?? '');
    if (appId === CONSOLE_APP_ID) throw new ApiError('app_already_exists', { detail: `'${appId}' is the console's own app.` });
    const maxUsers = String(req.body.maxUsers ?? '').trim();
    const input = parseForm(createAppSchema, {
      adminEmail: req.body.adminEmail,
      plan: req.body.plan,
      eventLoggingIsEnabled: checked(req.body.eventLoggingIsEnabled),
      maxUsers: maxUsers === '' ? null : Number(maxUsers),
    });
    const created = await services.apps.create(appId, input, by(operator));
    await services.apps.setFeatures(appId, { isMagicLinksEnabled: checked(req.body.isMagicLinksEnabled), isGenerateSignInTokenEndpointEnabled: checked(req.body.isGenerateSignInTokenEndpointEnabled) }, by(operator));
    routes.record(operator, appId, 'The app was created.');
    const key = (label: string, value: string) => html`<tr><th>${label}</th><td><code data-secret>${value}</code> <button type="button" data-copy>Copy</button></td></tr>`;
    const body = html`<p class="notice ok">The app <strong>${appId}</strong> was created. Its keys are shown <strong>only now</strong>: store the secrets in your backend's configuration.</p>
<table class="keys" data-created-keys>${key('ApiKey (public)', created.apiKey1)}${key('ApiSecret', created.apiSecret1)}${key('Second ApiKey', created.apiKey2)}${key('Second ApiSecret', created.apiSecret2)}</table>
<p><a href="${base}/apps/${appId}">Open the app's settings</a></p>`;
    res.type('html').send(layout(ctx, req, { title: 'App created', body, operator, appId }));
  });
}
