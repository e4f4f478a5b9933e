import express, { type Request, type Router } from 'express';
import { recordSignIn } from '../../../express/accountSession';
import { ApiError } from '../../core/apiError';
import { CONSOLE_APP_ID } from '../consoleAppId';
import type { ConsoleContext } from '../consoleContext';
import { consolePathOf } from '../consolePathOf';
import { requireSameOriginForm } from '../consoleCsrf';
import { html } from '../html';
import { layout } from '../layout';
import { OperatorStore, type Operator } from '../operatorStore';
import { sendConsoleProblem } from '../sendConsoleProblem';

/** `next` after sign-in: a console page, never another site (no open redirect). */
export function safeNext(base: string, value: unknown): string {
  const path = consolePathOf(base, value);
  return path.startsWith(`${base}/sign-in`) ? `${base}/apps` : path;
}

/** A JSON post from this console's own page: same origin, JSON only (a form cannot send it without a preflight). */
const sameOriginJson = (req: Request): boolean =>
  (req.headers['sec-fetch-site'] === undefined || req.headers['sec-fetch-site'] === 'same-origin') && (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase() === 'application/json';

/** The pages a signed-out visitor may open: sign-in, an invite, recovery; and signing out. */
export function publicPages(ctx: ConsoleContext, router: Router): void {
  const { base } = ctx;
  const operators = new OperatorStore(ctx.services);
  const recovery = ctx.services.config.smtpUrl !== undefined;

  router.get(base, (_req, res) => res.redirect(303, `${base}/apps`));

  router.get(`${base}/sign-in`, (req, res) => {
    if (req.isAuthenticated?.() && req.user) {
      res.redirect(303, safeNext(base, req.query.next));
      return;
    }
    const body = html`<form class="card signin" data-signin data-next="${safeNext(base, req.query.next)}" novalidate>
<p>Operators sign in with their passkey. Pick it from the address field's suggestions, or use the button.</p>
<label>Email address <input type="email" name="username" autocomplete="username webauthn" autofocus></label>
<button type="button" data-passkey-signin>Sign in with a passkey</button>
<p class="error" data-error hidden></p>
</form>
${recovery && html`<p><a href="${base}/recover">Lost your passkey?</a> We mail you a link that signs you in once.</p>`}
<p class="hint">New operators are invited: <code>passwordless-selfhost console invite you@example.com</code> prints a link, valid for 24 hours.</p>`;
    res.type('html').send(layout(ctx, req, { title: 'Sign in', body, page: 'sign-in' }));
  });

  router.get(`${base}/invite`, (req, res) => {
    const body = html`<div class="card" data-invite>
<p>You were invited to operate this service. Accepting makes a passkey for this console on your device; you sign in with it from then on.</p>
<button type="button" data-accept-invite>Create my passkey</button>
<p class="error" data-error hidden></p>
</div>`;
    res.type('html').send(layout(ctx, req, { title: 'Accept your invite', body, page: 'invite' }));
  });

  // The invite page's passkey was made with the invite's registration token; its verify token signs the new operator in.
  router.post(`${base}/invite/complete`, express.json({ limit: '8kb' }), (req, res, next) => {
    const run = async () => {
      if (!sameOriginJson(req)) throw new ApiError('console_form_refused');
      const token = typeof req.body?.token === 'string' ? req.body.token : '';
      let verified;
      try {
        verified = await ctx.services.verification.verify(CONSOLE_APP_ID, { token });
      } catch (error) {
        if (error instanceof ApiError && error.status < 500) throw new ApiError('invite_invalid', { detail: error.message });
        throw error;
      }
      const operator = verified.type === 'passkey_register' && verified.origin === ctx.origin ? await operators.findById(verified.userId) : undefined;
      if (!operator) throw new ApiError('invite_invalid');
      await new Promise<void>((resolve, reject) => req.logIn(operator as Operator, (error) => (error ? reject(error) : resolve())));
      // Opened by the invite: like a sign-up, it may add a second passkey at once without a step-up.
      recordSignIn(req, verified, 'sign-up', ctx.now());
      ctx.services.events.record(CONSOLE_APP_ID, { type: 'ConsoleActionPerformed', message: 'An invited operator made their first passkey.', subject: 'operators', performedBy: operator.email });
      res.status(200).json({ next: `${base}/apps` });
    };
    run().catch((error: unknown) => {
      if (error instanceof ApiError) sendConsoleProblem(res, error);
      else next(error);
    });
  });

  router.get(`${base}/recover`, (req, res) => {
    const body = recovery
      ? html`<div class="card" data-recover>
<p data-recover-request>Enter your operator address: if it is one, a link that signs you in once is mailed to it.</p>
<form data-recover-form novalidate><label>Email address <input type="email" name="email" autocomplete="username"></label> <button type="submit">Mail me a link</button></form>
<button type="button" data-recover-confirm hidden>Sign in with the mailed link</button>
<p class="status" data-status hidden></p>
</div>`
      : html`<p>Mail is not configured (SMTP_URL), so there is no recovery by email. Another operator can invite you again, or run <code>passwordless-selfhost console invite</code>.</p>`;
    res.type('html').send(layout(ctx, req, { title: 'Recover your access', body, page: 'recover' }));
  });

  router.post(`${base}/sign-out`, express.urlencoded({ extended: false, limit: '4kb' }), requireSameOriginForm(ctx.origin), (req, res, next) => {
    req.logout((error) => {
      if (error) {
        next(error);
        return;
      }
      req.session.destroy(() => {
        res.clearCookie(ctx.sessionCookie.name, ctx.sessionCookie.options);
        res.redirect(303, `${base}/sign-in`);
      });
    });
  });
}
