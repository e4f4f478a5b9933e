/**
 * An error the service did not expect is answered with a bare 500 problem and logged in full (name,
 * message, stack, method, path, request id), without the request's headers.
 */
import pino from 'pino';
import { openSqliteConnection } from '../../src/server/store/sqlite';
import { setFeatures } from '../support/privateApi';
import { startTestService, type TestService } from '../support/testService';

describe('an unexpected error', () => {
  let svc: TestService;
  const lines: string[] = [];
  beforeAll(async () => {
    svc = await startTestService('sqlite', {}, { logger: pino({ level: 'info' }, { write: (line: string) => void lines.push(line) }) });
  });
  afterAll(() => svc.close());

  it('is a 500 internal_error problem, logged with its stack and request id but no header', async () => {
    const app = await svc.createApp();
    await setFeatures(svc, app, { eventLoggingIsEnabled: true });
    // A database that lost a table: every read of the event log now fails in a way no rule maps.
    const sqlite = openSqliteConnection(svc.config.databaseUrl.replace(/^file:/, ''));
    sqlite.exec('DROP TABLE "Event"');
    sqlite.close();

    const res = await svc.http.get('/events?pageNumber=1').set('ApiSecret', app.apiSecret).set('X-Request-Id', 'broken-events-1');
    expect(res.status).toBe(500);
    // Nothing of the error itself reaches the caller.
    expect(Object.keys(res.body).sort()).toEqual(['errorCode', 'status', 'title', 'traceId', 'type']);
    expect(res.body).toMatchObject({ errorCode: 'internal_error', traceId: 'broken-events-1' });

    const logged = lines.map((line) => JSON.parse(line) as Record<string, any>).find((entry) => entry.msg === 'unhandled error');
    expect(logged).toMatchObject({ level: 50, method: 'GET', path: '/events', requestId: 'broken-events-1', err: { message: expect.stringMatching(/Event/), stack: expect.stringContaining('\n    at ') } });
    const everything = lines.join('');
    expect(everything).not.toContain(app.apiSecret);
    expect(everything).not.toContain(app.apiSecret.slice(-32));
  });
});
