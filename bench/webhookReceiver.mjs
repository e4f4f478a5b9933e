// The bench's webhook receiver: a node:http server on loopback (in the bench's own process) that
// reads each delivery and answers 204, counting them (and their distinct webhook-ids), so that a sign-in with a subscribed endpoint
// pays for a delivery that succeeds, as in production.
import { createServer } from 'node:http';

export function startWebhookReceiver() {
  let received = 0;
  const ids = new Set();
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received++;
      ids.add(req.headers['webhook-id']);
      res.writeHead(204).end();
    });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      resolve({
        url: `http://127.0.0.1:${server.address().port}/hook`,
        received: () => received,
        /** Distinct webhook-ids: a delivery sent twice counts once. */
        distinct: () => ids.size,
        close: () => new Promise((done) => server.close(done)),
      });
    });
  });
}
