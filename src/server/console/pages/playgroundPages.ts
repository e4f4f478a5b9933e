import { randomBytes } from 'node:crypto';
import { registerTokenSchema } from '../../services/ceremonies/registration';
import { verifyTokenSchema } from '../../services/ceremonies/verification';
import type { ConsoleContext } from '../consoleContext';
import { csrfTokenOf } from '../consoleCsrf';
import type { ConsoleRoutes } from '../consoleRoutes';
import { html } from '../html';
import { layout } from '../layout';
import { appOf } from './appOf';
import { parseForm } from './parseForm';
import { playgroundKeyOf } from './playgroundKey';

/** Every test user's id starts with it: the users page finds them by it, to revoke them. */
export const PLAYGROUND_USER_PREFIX = 'playground-';
/** The name of every passkey the playground makes, in the user's credentials. */
export const PLAYGROUND_PASSKEY_NAME = 'Console playground';
/** A registration token of the playground is used at once: it lives five minutes. */
const REGISTER_TOKEN_TTL_MS = 5 * 60_000;

/**
 * The playground: a test user of an app registers and signs in in the operator's browser, through
 * the published browser client and one of the app's public keys, and the console verifies the
 * resulting token in process. No secret reaches the page: the console mints the registration token
 * and verifies the sign-in itself, through the services.
 */
export function playgroundPages(ctx: ConsoleContext, routes: ConsoleRoutes): void {
  const { base, services } = ctx;
  const pathOf = (appId: string) => `${base}/apps/${encodeURIComponent(appId)}/playground`;

  routes.page(`${base}/apps/:appId/playground`, async (req, res, operator) => {
    const { appId, features } = await appOf(ctx, req);
    const apiKey = playgroundKeyOf(await services.apps.listKeys(appId));
    const refusesConsole = features.allowedOrigins.length > 0 && !features.allowedOrigins.includes(ctx.origin);
    const settings = `${base}/apps/${encodeURIComponent(appId)}`;
    const intro = html`<p>Register a test user of <strong>${appId}</strong> and sign it in here, with this browser's passkeys, as the app's own pages would: the
published browser client calls the API with the app's public key, and the console verifies the token it gets, as the app's backend would.</p>
<p class="hint">Test users are real users of the app: they count toward its user limit (maxUsers). Their ids start with <code>${PLAYGROUND_USER_PREFIX}</code>, their passkeys
are named <em>${PLAYGROUND_PASSKEY_NAME}</em>, and their username is their alias; find and revoke them on the <a href="${settings}/users">users page</a>.</p>`;
    const noKey = html`<p class="notice error" data-playground-no-key>This app has no unlocked public key (ApiKey) that may register and sign in, which the browser client needs.
Create one, or unlock one, in the <a href="${settings}">app's settings</a>.</p>`;
    const originWarning = html`<p class="notice error" data-playground-origin>This app's allowed origins (${features.allowedOrigins.join(', ')}) do not include the console's origin,
<code>${ctx.origin}</code>: the API refuses the playground's ceremonies (you will see its answer below). Add the console's origin to the allowed origins in the
<a href="${settings}">app's settings</a> to use the playground.</p>`;
    const controls = html`<section class="card" data-playground data-api-url="${ctx.publicUrl}" data-api-key="${apiKey}" data-csrf="${csrfTokenOf(req)}"
  data-token-url="${pathOf(appId)}/register-token" data-verify-url="${pathOf(appId)}/verify">
<h2>1. Register a test user</h2>
<form data-playground-register class="inline" novalidate>
<label>Username <input name="username" required maxlength="100" autocomplete="off" placeholder="test-user@example.com"></label>
<button type="submit">Register a test user</button>
</form>
<h2>2. Sign in</h2>
<form data-playground-alias class="inline" novalidate>
<label>Username <input name="alias" maxlength="100" autocomplete="off"></label>
<button type="submit">Sign in by username</button>
<button type="button" data-playground-discoverable>Sign in by picking a passkey</button>
</form>
<p class="hint">Picking a passkey lists every passkey of this site on your device, your console passkey too: pick the test user's.</p>
<p class="error" data-error hidden></p>
<h2>Verify result</h2>
<p class="status" data-playground-step>Nothing verified yet.</p>
<pre class="result" data-playground-result></pre>
</section>`;
    const body = html`${intro}${refusesConsole && originWarning}${apiKey === undefined ? noKey : controls}`;
    res.type('html').send(layout(ctx, req, { title: 'Playground', body, operator, appId, page: 'playground', scripts: apiKey === undefined ? [] : ['playground.js'] }));
  });

  // A registration token for a new test user: its id is chosen here, never by the page, so that no
  // passkey can be added to a real user of the app through the playground.
  routes.jsonAction(`${base}/apps/:appId/playground/register-token`, async (req, res, operator) => {
    const { appId } = await appOf(ctx, req);
    const userId = `${PLAYGROUND_USER_PREFIX}${randomBytes(9).toString('base64url')}`;
    const username = typeof req.body?.username === 'string' ? req.body.username.trim() : req.body?.username;
    const input = parseForm(registerTokenSchema, {
      userId,
      username,
      displayName: typeof username === 'string' ? `${username} (playground)` : undefined,
      // The alias is the username, unhashed: the users page shows it and sign-in by username uses it.
      aliases: typeof username === 'string' && username !== '' ? [username] : undefined,
      aliasHashing: false,
      discoverable: true,
      expiresAt: new Date(ctx.now() + REGISTER_TOKEN_TTL_MS).toISOString(),
    });
    const token = await services.registration.createToken(appId, input);
    routes.record(operator, appId, `Playground: the test user ${userId} (${input.username}) was given a registration token.`);
    res.json({ token, userId, username: input.username });
  });

  // The token the browser client got (register or sign-in), verified as the app's backend would.
  routes.jsonAction(`${base}/apps/:appId/playground/verify`, async (req, res, operator) => {
    const { appId } = await appOf(ctx, req);
    const result = await services.verification.verify(appId, parseForm(verifyTokenSchema, { token: req.body?.token }));
    if (result.type === 'passkey_register') routes.record(operator, appId, `Playground: the test user ${result.userId} registered a passkey.`);
    res.json({ result });
  });
}
