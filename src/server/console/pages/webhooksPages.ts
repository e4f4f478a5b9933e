import type { Request } from 'express';
import { ApiError } from '../../core/apiError';
import { MAX_WEBHOOK_ENDPOINTS } from '../../core/webhookEventTypes';
import { redeliverSchema } from '../../services/webhooks/webhookDeliveryLog';
import { SUBSCRIBABLE_EVENT_TYPES, createWebhookSchema, updateWebhookSchema, webhookIdSchema, type WebhookView } from '../../services/webhooks/webhookEndpoints';
import type { ConsoleContext } from '../consoleContext';
import { form, when } from '../consoleForms';
import { setNotice } from '../consoleNotice';
import { backPath, by, type ConsoleRoutes } from '../consoleRoutes';
import type { Operator } from '../operatorStore';
import { html, type Html } from '../html';
import { layout } from '../layout';
import { appOf } from './appOf';
import { parseForm } from './parseForm';

/** Deliveries shown under each endpoint on the app's page (at most 10 endpoints: 10 reads of one index). */
const LOG_ON_PAGE = 10;
/** Deliveries on an endpoint's own page: the most the delivery log answers. */
const LOG_ON_ENDPOINT_PAGE = 100;

type Delivery = Awaited<ReturnType<ConsoleContext['services']['webhookDeliveries']['list']>>[number];

/** A form field that may be posted once or repeated (checkboxes), as a list. */
const listOf = (value: unknown): unknown[] => (value === undefined ? [] : Array.isArray(value) ? value : [value]);

/** What the destination rules let an endpoint's URL be, as the service checks it (WEBHOOK_ALLOW_INSECURE, WEBHOOK_ALLOW_PRIVATE_NETWORKS). */
function destinationHint(ctx: ConsoleContext): Html {
  const { allowInsecure, allowPrivateNetworks } = ctx.services.config.webhooks;
  return html`<p class="hint">The URL must be <code>https</code> to a public address${allowInsecure ? html`, or plain <code>http</code> to a loopback address (WEBHOOK_ALLOW_INSECURE)` : ''}${
    allowPrivateNetworks.entries.length > 0 ? html`; these networks are allowed too (WEBHOOK_ALLOW_PRIVATE_NETWORKS): ${allowPrivateNetworks.entries.join(', ')}` : ''
  }. The service checks it when it is saved and before each delivery.</p>`;
}

/** One delivery's row: its state, attempts (each in a fold-out), the receiver's last answer, and a replay. */
function deliveryRow(req: Request, action: string, d: Delivery): Html {
  const answer = d.lastStatus !== null ? String(d.lastStatus) : d.lastError ? d.lastError : '—';
  const attempts =
    d.attemptLog.length === 0
      ? html`${d.attempts}`
      : html`<details><summary>${d.attempts}</summary><ol class="attempts">${d.attemptLog.map(
          (a) => html`<li>${when(a.at)}: ${a.status ?? a.error ?? '—'} (${a.durationMs} ms)</li>`,
        )}</ol></details>`;
  return html`<tr data-delivery="${d.id}" data-state="${d.state}"><td>${when(d.createdAt)}</td><td><code>${d.eventType}</code></td>
<td><span class="badge state-${d.state}">${d.state}</span></td><td class="num">${attempts}</td><td data-response>${answer}</td><td>${d.nextAttemptAt ? when(d.nextAttemptAt) : '—'}</td>
<td>${form(req, action, html`<input type="hidden" name="deliveryId" value="${d.id}"><button type="submit">Replay</button>`)}</td></tr>`;
}

function deliveryTable(req: Request, action: string, deliveries: Delivery[]): Html {
  if (deliveries.length === 0) return html`<p class="hint" data-deliveries-empty>No deliveries yet.</p>`;
  return html`<table data-deliveries><thead><tr><th>Created</th><th>Event</th><th>State</th><th class="num">Attempts</th><th>Response</th><th>Next try</th><th></th></tr></thead>
<tbody>${deliveries.map((d) => deliveryRow(req, action, d))}</tbody></table>`;
}

/**
 * An app's webhooks: its endpoints (add, enable or disable, delete, rotate the secret, send a test
 * event) and each one's delivery log, newest first, with a replay of any delivery. Every change
 * goes through the services the API uses, so the destination rules, the endpoint limit and the
 * limits on requested sends are the API's.
 */
export function webhooksPages(ctx: ConsoleContext, routes: ConsoleRoutes): void {
  const { base, services } = ctx;
  const pathOf = (appId: string) => `${base}/apps/${encodeURIComponent(appId)}/webhooks`;

  /** The secret of an endpoint, shown in this answer only (never in a notice, the session or a log). */
  const secretOnce = (req: Request, operator: Operator, appId: string, title: string, lead: Html, secret: string) => {
    const body = html`<p class="notice ok">${lead}</p>
<p>The signing secret is shown <strong>only now</strong>: give it to the receiver, which verifies each webhook's <code>webhook-signature</code> with it (Standard Webhooks).</p>
<p class="secret" data-webhook-secret><code data-secret>${secret}</code> <button type="button" data-copy>Copy</button></p>
<p><a href="${pathOf(appId)}">Back to the webhooks</a></p>`;
    return layout(ctx, req, { title, body, operator, appId });
  };

  routes.page(`${base}/apps/:appId/webhooks`, async (req, res, operator) => {
    const { appId } = await appOf(ctx, req);
    const path = pathOf(appId);
    const endpoints = await services.webhooks.list(appId);
    const logs = await Promise.all(endpoints.map((endpoint) => services.webhookDeliveries.list(appId, endpoint.id, LOG_ON_PAGE)));
    const endpointCard = (endpoint: WebhookView, deliveries: Delivery[]) => {
      const idField = html`<input type="hidden" name="id" value="${endpoint.id}">`;
      return html`<section class="card" data-endpoint="${endpoint.id}">
<h2 class="endpoint-url"><code>${endpoint.url}</code> ${endpoint.enabled ? html`<span class="badge ok" data-enabled>enabled</span>` : html`<span class="badge danger" data-disabled>disabled</span>`}</h2>
${endpoint.description && html`<p>${endpoint.description}</p>`}
<p class="hint">${endpoint.id} · created ${when(endpoint.createdAt)} · events: ${endpoint.eventTypes.join(', ')}${endpoint.disabledReason && html` · disabled by the service: ${endpoint.disabledReason}`}${
        endpoint.previousSecretExpiresAt && html` · the previous secret signs beside the new one until ${when(endpoint.previousSecretExpiresAt)}`
      }</p>
<div class="actions">
${form(req, `${path}/test`, html`${idField}<button type="submit" data-send-test>Send a test event</button>`)}
${form(req, `${path}/update`, html`${idField}<input type="hidden" name="enabled" value="${endpoint.enabled ? 'false' : 'true'}"><button type="submit">${endpoint.enabled ? 'Disable' : 'Enable'}</button>`)}
${form(req, `${path}/rotate-secret`, html`${idField}<button type="submit" data-rotate-secret>Rotate the secret</button>`, {
  confirm: 'Give this endpoint a new signing secret? The current one keeps signing beside it for 24 hours.',
})}
${form(req, `${path}/delete`, html`${idField}<button type="submit" class="danger">Delete</button>`, { confirm: `Delete the endpoint ${endpoint.url} and its delivery log?` })}
</div>
<h3>Delivery log</h3>
${deliveryTable(req, `${path}/redeliver`, deliveries)}
<p class="pager"><a href="${path}/${endpoint.id}">The latest ${LOG_ON_ENDPOINT_PAGE} deliveries</a> · <a href="${req.originalUrl}">Refresh</a></p>
</section>`;
    };
    const body = html`${endpoints.map((endpoint, i) => endpointCard(endpoint, logs[i]))}
${endpoints.length === 0 && html`<p class="hint">No endpoints yet.</p>`}
<section class="card"><h2>Add an endpoint</h2>
${
  endpoints.length >= MAX_WEBHOOK_ENDPOINTS
    ? html`<p>The app has ${MAX_WEBHOOK_ENDPOINTS} endpoints, as many as it may: delete one first.</p>`
    : form(
        req,
        path,
        html`<label>URL <input type="url" name="url" required maxlength="2048" size="60" placeholder="https://example.com/webhooks"></label>
<label>Description <input name="description" maxlength="500" size="60"></label>
<fieldset><legend>Events it receives</legend>${SUBSCRIBABLE_EVENT_TYPES.map((type) => html`<label class="inline"><input type="checkbox" name="eventTypes" value="${type}"> <code>${type}</code></label>`)}</fieldset>
<label><input type="checkbox" name="enabled" checked> Enabled</label>
${destinationHint(ctx)}
<button type="submit">Add the endpoint</button>`,
        { className: 'stack' },
      )
}</section>`;
    res.type('html').send(layout(ctx, req, { title: 'Webhooks', body, operator, appId }));
  });

  routes.page(`${base}/apps/:appId/webhooks/:endpointId`, async (req, res, operator) => {
    const { appId } = await appOf(ctx, req);
    const path = pathOf(appId);
    const endpointId = String(req.params.endpointId);
    const deliveries = await services.webhookDeliveries.list(appId, endpointId, LOG_ON_ENDPOINT_PAGE);
    const endpoint = (await services.webhooks.list(appId)).find((e) => e.id === endpointId);
    const body = html`<p><code>${endpoint?.url ?? endpointId}</code> · <a href="${path}">All endpoints</a></p>
${deliveryTable(req, `${path}/redeliver`, deliveries)}
<p class="hint">The latest ${LOG_ON_ENDPOINT_PAGE} deliveries, newest first, as the delivery log keeps them (finished ones for 30 days).</p>`;
    res.type('html').send(layout(ctx, req, { title: 'Delivery log', body, operator, appId }));
  });

  routes.action(`${base}/apps/:appId/webhooks`, {}, async (req, res, operator) => {
    const { appId } = await appOf(ctx, req);
    const description = String(req.body.description ?? '').trim();
    const input = parseForm(createWebhookSchema, {
      url: String(req.body.url ?? '').trim(),
      eventTypes: listOf(req.body.eventTypes),
      description: description === '' ? undefined : description,
      enabled: req.body.enabled === 'on',
    });
    const created = await services.webhooks.create(appId, input, by(operator));
    // The id, not the URL: a URL may carry a credential of the receiver's.
    routes.record(operator, appId, `The webhook endpoint ${created.id} was added.`);
    res.type('html').send(secretOnce(req, operator, appId, 'Endpoint added', html`The endpoint <code>${created.url}</code> was added (${created.id}).`, created.secret));
  });

  routes.action(`${base}/apps/:appId/webhooks/update`, {}, async (req, res, operator) => {
    const { appId } = await appOf(ctx, req);
    const { id, enabled } = parseForm(updateWebhookSchema, { id: req.body.id, enabled: req.body.enabled });
    if (enabled === undefined) throw new ApiError('validation_failed', { detail: 'enabled is required.' });
    const updated = await services.webhooks.update(appId, id, { enabled }, by(operator));
    const state = updated.enabled ? 'enabled' : 'disabled';
    routes.record(operator, appId, `The webhook endpoint ${id} was ${state}.`);
    setNotice(req, { kind: 'ok', text: `The endpoint was ${state}.` });
    res.redirect(303, backPath(ctx, req));
  });

  routes.action(`${base}/apps/:appId/webhooks/delete`, {}, async (req, res, operator) => {
    const { appId } = await appOf(ctx, req);
    const { id } = parseForm(webhookIdSchema, { id: req.body.id });
    await services.webhooks.delete(appId, id, by(operator));
    routes.record(operator, appId, `The webhook endpoint ${id} was deleted.`);
    setNotice(req, { kind: 'ok', text: 'The endpoint and its delivery log were deleted.' });
    res.redirect(303, pathOf(appId));
  });

  routes.action(`${base}/apps/:appId/webhooks/rotate-secret`, {}, async (req, res, operator) => {
    const { appId } = await appOf(ctx, req);
    const { id } = parseForm(webhookIdSchema, { id: req.body.id });
    const rotated = await services.webhooks.rotateSecret(appId, id, by(operator));
    routes.record(operator, appId, `The signing secret of the webhook endpoint ${id} was rotated.`);
    const lead = html`The endpoint ${id} has a new signing secret. Until ${when(rotated.previousSecretExpiresAt)} every webhook also carries the previous secret's signature, so the receiver can switch without missing one.`;
    res.type('html').send(secretOnce(req, operator, appId, 'Secret rotated', lead, rotated.secret));
  });

  routes.action(`${base}/apps/:appId/webhooks/test`, {}, async (req, res, operator) => {
    const { appId } = await appOf(ctx, req);
    const { id } = parseForm(webhookIdSchema, { id: req.body.id });
    const sent = await services.webhookDeliveries.sendTest(appId, id, by(operator));
    routes.record(operator, appId, `A test event was sent to the webhook endpoint ${id} (${sent.id}).`);
    setNotice(req, { kind: 'ok', text: `A webhook.test event was queued (${sent.id}); its delivery shows in the log below.` });
    res.redirect(303, backPath(ctx, req));
  });

  routes.action(`${base}/apps/:appId/webhooks/redeliver`, {}, async (req, res, operator) => {
    const { appId } = await appOf(ctx, req);
    const { deliveryId } = parseForm(redeliverSchema, { deliveryId: req.body.deliveryId });
    const sent = await services.webhookDeliveries.redeliver(appId, deliveryId, by(operator));
    routes.record(operator, appId, `The webhook delivery ${deliveryId} was replayed (${sent.id}).`);
    setNotice(req, { kind: 'ok', text: `The delivery was queued again (${sent.id}, with the same webhook-id ${sent.webhookId}).` });
    res.redirect(303, backPath(ctx, req));
  });
}
