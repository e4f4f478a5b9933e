import { connect } from 'node:net';
import { loadConfig } from '../../src/server/core/config';
import { startService, type RunningService } from '../../src/server/server';
import { createTestDatabase, providers, type TestDatabase } from '../support/testService';

/** Requests Node's HTTP parser refuses before any route runs are still answered as problems. */

/** Request line plus headers, written straight to a socket; returns status, headers and body. */
function rawExchange(url: string, request: string): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.end(request));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [head, ...rest] = text.split('\r\n\r\n');
      const [statusLine, ...headerLines] = head.split('\r\n');
      const headers = Object.fromEntries(headerLines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: rest.join('\r\n\r\n') });
    });
  });
}

describe.each(providers())('malformed HTTP on %s', (provider) => {
  describe('requests Node refuses before any route runs', () => {
    let database: TestDatabase;
    let running: RunningService;
    beforeAll(async () => {
      database = await createTestDatabase(provider);
      running = await startService({ ...loadConfig({ DATABASE_URL: database.url, LOG_LEVEL: 'silent' }), port: 0 });
    });
    afterAll(async () => {
      await running.close();
      await database.drop();
    });

    it.each([
      ['a 20,000-character path', 431, 'headers_too_large', `GET /${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`],
      ['a 20,000-character ApiKey', 431, 'headers_too_large', `POST /signin/begin HTTP/1.1\r\nHost: x\r\nApiKey: ${'a'.repeat(20_000)}\r\n\r\n`],
      ['a request line that is not HTTP', 400, 'bad_request', 'GARBAGE\r\n\r\n'],
      ['a Content-Length that is not a number', 400, 'bad_request', 'POST /alias HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n'],
    ])('%s is answered as a %d %s problem', async (_label, status, errorCode, request) => {
      const answer = await rawExchange(running.url, request);
      expect({ status: answer.status, contentType: answer.headers['content-type'] }).toEqual({ status, contentType: 'application/problem+json' });
      expect(JSON.parse(answer.body)).toMatchObject({ status, errorCode });
    });
  });
});
