import type { ConsoleContext } from '../consoleContext';
import type { ConsoleRoutes } from '../consoleRoutes';
import { html } from '../html';
import { layout } from '../layout';

/**
 * The operator's own passkeys and sessions. The lists are filled by the page's script from the
 * middleware's routes (adding, renaming and deleting a passkey and ending a session go through
 * them, with the step-ups they ask for), as on any host app of the middleware.
 */
export function accountPages(ctx: ConsoleContext, routes: ConsoleRoutes): void {
  routes.page(`${ctx.base}/account`, async (req, res, operator) => {
    const body = html`<section class="card"><h2>Passkeys</h2>
<table data-passkeys><thead><tr><th>Name</th><th>Provider</th><th>Created</th><th>Last used</th><th>Synced</th><th></th></tr></thead><tbody></tbody></table>
<button type="button" data-add-passkey>Add a passkey</button>
<p class="error" data-error hidden></p></section>
<section class="card"><h2>Where you are signed in</h2>
<table data-sessions><thead><tr><th>Device</th><th>Browser</th><th>Passkey</th><th>Signed in</th><th>Last seen</th><th></th></tr></thead><tbody></tbody></table>
<button type="button" data-end-other-sessions>Sign out everywhere else</button></section>
<p class="hint">Signed in as ${operator.email}. The session ends after ${Math.round(ctx.services.config.console.idleMs / 60_000)} minutes without a request.</p>`;
    res.type('html').send(layout(ctx, req, { title: 'Your account', body, operator, page: 'account' }));
  });
}
