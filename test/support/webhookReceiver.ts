import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
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
  /** While true, requests are recorded but left unanswered (in flight at the sender). */
  hold: boolean;
  url(path: string): string;
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  let port = 0;
  let server: Server | undefined;
  const receiver: WebhookReceiver = {
    received: [],
    status: 204,
    connections: 0,
    hold: false,
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
          };
          receiver.received.push(webhook);
          if (receiver.hold) return;
          res.statusCode = typeof receiver.status === 'function' ? receiver.status(path, webhook) : receiver.status;
          res.end();
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
