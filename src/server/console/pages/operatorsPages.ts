import { ApiError } from '../../core/apiError';
import { CONSOLE_APP_ID } from '../consoleAppId';
import type { ConsoleContext } from '../consoleContext';
import { form, nextPageLink, when } from '../consoleForms';
import { setNotice } from '../consoleNotice';
import { by, type ConsoleRoutes } from '../consoleRoutes';
import { html } from '../html';
import { inviteOperator } from '../inviteOperator';
import { layout } from '../layout';

const PAGE_SIZE = 50;

/** Operators: who they are, inviting one (the link shown, and mailed when mail is set up), removing one. */
export function operatorsPages(ctx: ConsoleContext, routes: ConsoleRoutes): void {
  const { base, services } = ctx;

  routes.page(`${base}/operators`, async (req, res, operator) => {
    const after = typeof req.query.after === 'string' ? req.query.after : undefined;
    const page = await services.users.page(CONSOLE_APP_ID, after, PAGE_SIZE);
    const rows = page.values.map((user) => {
      const email = user.aliases?.[0] ?? user.userId;
      return html`<tr><td>${email}${user.userId === operator.id && html` <em>(you)</em>`}</td><td>${user.credentialsCount}</td><td>${when(user.lastUsedAt)}</td>
<td>${user.userId !== operator.id && form(req, `${base}/operators/remove`, html`<input type="hidden" name="userId" value="${user.userId}"><button type="submit" class="danger">Remove</button>`, { stepUp: true, confirm: `Remove ${email}? Their passkeys are deleted and their sessions end.` })}</td></tr>`;
    });
    const body = html`<section class="card"><h2>Invite an operator</h2>
${form(req, `${base}/operators/invite`, html`<label>Email address <input type="email" name="email" required></label> <button type="submit">Invite</button>`)}
<p class="hint">The invite is a link that works once, for 24 hours${services.config.smtpUrl ? ', and is mailed to the address' : ''}.</p></section>
<table><thead><tr><th>Operator</th><th>Passkeys</th><th>Last used</th><th></th></tr></thead><tbody>${rows}</tbody></table>
${nextPageLink(`${base}/operators`, page.next)}
<p><a href="${base}/apps/${CONSOLE_APP_ID}/events">The operators’ audit trail</a>: every console action, with the operator who did it.</p>`;
    res.type('html').send(layout(ctx, req, { title: 'Operators', body, operator }));
  });

  routes.action(`${base}/operators/invite`, {}, async (req, res, operator) => {
    const invite = await inviteOperator(services, { email: String(req.body.email ?? ''), by: by(operator) });
    if (services.config.smtpUrl) {
      await services.mailer.send({
        to: invite.email,
        subject: 'You are invited to the passkey service console',
        text: `${operator.email} invited you to operate the passkey service. Open this link within 24 hours to make your passkey:\n\n${invite.link}\n`,
        html: html`<p>${operator.email} invited you to operate the passkey service.</p><p><a href="${invite.link}">Make your passkey</a> (within 24 hours; the link works once).</p>`.markup,
      });
    }
    const body = html`<p>Send this link to ${invite.email}${services.config.smtpUrl ? ' (it was mailed too)' : ''}. It works once, until ${when(invite.expiresAt)}.</p>
<p class="secret"><code data-secret>${invite.link}</code> <button type="button" data-copy>Copy</button></p>
<p><a href="${base}/operators">Back to the operators</a></p>`;
    res.type('html').send(layout(ctx, req, { title: 'Invite made', body, operator }));
  });

  routes.action(`${base}/operators/remove`, { stepUp: true }, async (req, res, operator) => {
    const userId = String(req.body.userId ?? '');
    if (userId === operator.id) throw new ApiError('validation_failed', { detail: 'You cannot remove yourself: another operator can.' });
    const removed = await ctx.auth.revokeUser(userId);
    await services.users.delete(CONSOLE_APP_ID, userId, by(operator));
    services.events.record(CONSOLE_APP_ID, { type: 'ConsoleOperatorRemoved', message: `An operator was removed (${removed.passkeys} passkeys deleted, ${removed.sessions} sessions ended).`, subject: userId, performedBy: by(operator) });
    setNotice(req, { kind: 'ok', text: 'The operator was removed.' });
    res.redirect(303, `${base}/operators`);
  });
}
