import type { ClaimedDelivery } from '../../store/repositories';
import { annotateSpan, linksTo, type SpanOptions } from '../../core/telemetry/tracing';
import type { WebhookResponse } from './sendWebhook';

/**
 * The span of one delivery attempt (`webhook deliver`): linked to the span of the change that
 * queued it (its stored traceparent), with the app, the endpoint and the attempt's number. Never
 * the payload, the URL or a signature.
 */
export function deliverySpanOptions(delivery: ClaimedDelivery, endpointId: string): SpanOptions {
  return {
    links: () => linksTo(delivery.traceContext),
    attributes: () => ({
      'passwordless.app_id': delivery.tenant,
      'passwordless.webhook.endpoint_id': endpointId,
      'passwordless.webhook.delivery_id': delivery.id,
      'passwordless.webhook.attempt': delivery.attempts + 1,
    }),
  };
}

/** Puts what an attempt came to on its span: the receiver's status, or the kind of failure. */
export function annotatedWithOutcome(response: WebhookResponse): WebhookResponse {
  annotateSpan(() => ('status' in response ? { 'http.response.status_code': response.status } : { 'error.type': response.error }));
  return response;
}
