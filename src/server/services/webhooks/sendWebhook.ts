import { request, type Dispatcher } from 'undici';

export interface WebhookRequest {
  url: string;
  /** The endpoint's agent, pinned to the address the destination check approved (webhookAgents.ts). */
  dispatcher: Dispatcher;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  /** Aborts the attempt (the service is stopping); it then counts as not made. */
  signal?: AbortSignal;
}

/** What came of one attempt: the receiver's status, or why there was none. */
export type WebhookResponse = { status: number; durationMs: number } | { error: string; durationMs: number };

/** At most this much of a receiver's answer is read (and thrown away) before the connection is closed. */
const MAX_RESPONSE_BYTES = 64 * 1024;

/**
 * One POST of a webhook, with undici, through the endpoint's pinned agent. Redirects are not
 * followed. The whole attempt, answer included, has `timeoutMs`.
 */
export async function sendWebhook(webhook: WebhookRequest): Promise<WebhookResponse> {
  const timeout = AbortSignal.timeout(webhook.timeoutMs);
  const signal = webhook.signal ? AbortSignal.any([timeout, webhook.signal]) : timeout;
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  try {
    const response = await request(webhook.url, { method: 'POST', headers: webhook.headers, body: webhook.body, dispatcher: webhook.dispatcher, signal });
    let read = 0;
    for await (const chunk of response.body) {
      read += (chunk as Buffer).length;
      if (read >= MAX_RESPONSE_BYTES) break; // leaving the loop destroys the body
    }
    return { status: response.statusCode, durationMs: elapsed() };
  } catch (error) {
    if (timeout.aborted) return { error: `no answer within ${webhook.timeoutMs} ms`, durationMs: elapsed() };
    if (webhook.signal?.aborted) return { error: 'aborted', durationMs: elapsed() };
    const { code, name } = error as { code?: string; name?: string };
    return { error: code ?? name ?? 'request failed', durationMs: elapsed() };
  }
}
