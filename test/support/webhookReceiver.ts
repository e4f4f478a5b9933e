import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface ReceivedWebhook {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  id: string;
  /** The `webhook-signature` header's signatures (`v1,…`), one per secret signing. */
  signatures: string[];
  payload: { type: string; timestamp: string; data: Record<string, unknown> };
  /** When it arrived (Date.now()). */
  at: number;
}

/**
 * A real webhook receiver on 127.0.0.1 (a port of the OS's choosing): records every POST and
 * answers `status` (a number or a function of the path). It can be stopped (connections refused)
 * and started again on the same port, as a receiver that is down for a while.
 */
export interface WebhookReceiver {
  received: ReceivedWebhook[];
  status: number | ((path: string, webhook: ReceivedWebhook) => number);
  /** How many connections senders opened to it. */
  connections: number;
  /** While true, requests are recorded but left unanswered (in flight at the sender) until `release()`. */
  hold: boolean;
  /** The held requests still open (the sender has neither given up nor been answered). */
  heldOpen(): ReceivedWebhook[];
  /** Stops holding, and answers every held request still open with `status`. */
  release(): void;
  url(path: string): string;
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  let port = 0;
  let server: Server | undefined;
  const held: { res: ServerResponse; webhook: ReceivedWebhook; open: boolean }[] = [];
  const answer = (res: ServerResponse, webhook: ReceivedWebhook) => {
    res.statusCode = typeof receiver.status === 'function' ? receiver.status(webhook.path, webhook) : receiver.status;
    res.end();
  };
  const receiver: WebhookReceiver = {
    received: [],
    status: 204,
    connections: 0,
    hold: false,
    heldOpen: () => held.filter((h) => h.open).map((h) => h.webhook),
    release() {
      receiver.hold = false;
      for (const h of held.splice(0)) if (h.open) answer(h.res, h.webhook);
    },
    url: (path) => `http://127.0.0.1:${port}${path}`,
    async start() {
      const next = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (chunk: Buffer) => chunks.push(chunk));
        req.on('end', () => {
          const body = Buffer.concat(chunks).toString('utf8');
          const path = req.url ?? '/';
          const webhook: ReceivedWebhook = {
            path,
            headers: req.headers,
            body,
            id: String(req.headers['webhook-id']),
            signatures: String(req.headers['webhook-signature'] ?? '').split(' '),
            payload: JSON.parse(body),
            at: Date.now(),
          };
          receiver.received.push(webhook);
          if (!receiver.hold) return answer(res, webhook);
          const entry = { res, webhook, open: true };
          held.push(entry);
          // The sender gave up (its timeout) or went away: the request is no longer held open.
          res.once('close', () => (entry.open = false));
        });
      });
      next.on('connection', () => receiver.connections++);
      await new Promise<void>((resolve, reject) => {
        next.once('error', reject);
        next.listen(port, '127.0.0.1', () => resolve());
      });
      port = (next.address() as AddressInfo).port;
      server = next;
    },
    async stop() {
      const current = server;
      server = undefined;
      if (!current) return;
      current.closeAllConnections();
      await new Promise<void>((resolve) => current.close(() => resolve()));
    },
    close: () => receiver.stop(),
  };
  await receiver.start();
  return receiver;
}

/** Verifies a received webhook with a secret, as a customer would with the standardwebhooks package; throws when it does not verify. */
export function verifyWebhook(webhook: ReceivedWebhook, secret: string): unknown {
  return new Webhook(secret).verify(webhook.body, {
    'webhook-id': String(webhook.headers['webhook-id']),
    'webhook-timestamp': String(webhook.headers['webhook-timestamp']),
    'webhook-signature': String(webhook.headers['webhook-signature']),
  });
}
