/**
 * The event log cannot be spammed anonymously, on a service process: a flood of wrong keys with a
 * known key id writes one event per key id and client address a minute, carrying the count
 * (written when the minute ends, or when the service stops, as here).
 */
import { MANAGEMENT_KEY, createTestDatabase, type TestApp } from '../support/testService';
import { startServiceProcess } from '../support/serviceProcess';

const PROCESS_TIMEOUT_MS = 120_000;

/** `key` with its value changed and its id (the last four characters) kept. */
const wrongValueOf = (key: string, n: number) => `${key.slice(0, -12)}${n.toString(16).padStart(8, '0')}${key.slice(-4)}`;

describe('refused keys in the event log, on a service process', () => {
  it(
    'writes one event with the count for a flood of wrong keys from one address, and one per address',
    async () => {
      const database = await createTestDatabase('sqlite');
      const first = await startServiceProcess({ TRUST_PROXY: 'loopback' }, database);
      let second: typeof first | undefined;
      try {
        const app: TestApp = await first.createApp();
        expect((await first.http.post(`/admin/apps/${app.appId}/features`).set('ManagementKey', MANAGEMENT_KEY).send({ eventLoggingIsEnabled: true })).status).toBe(204);
        const flood = async (count: number, from: string, header: 'ApiSecret' | 'ApiKey', key: string, path: string) => {
          for (let i = 0; i < count; i++) {
            const request = path === '/users/count' ? first.http.get(path) : first.http.post(path).send({});
            const res = await request.set(header, wrongValueOf(key, i)).set('X-Forwarded-For', from);
            expect(res.status).toBe(401);
          }
        };
        await flood(40, '203.0.113.7', 'ApiSecret', app.apiSecret, '/signin/verify');
        await flood(30, '203.0.113.7', 'ApiKey', app.apiKey, '/signin/begin');
        await flood(5, '198.51.100.9', 'ApiSecret', app.apiSecret, '/users/count');
        // Stopping writes the open tallies; a new process on the database reads the log.
        await first.stop();
        second = await startServiceProcess({}, database);
        const page = await second.http.get('/events?pageNumber=1&numberOfResults=1000').set('ApiSecret', app.apiSecret);
        expect(page.status).toBe(200);
        const refusals = (page.body.events as { eventType: string; message: string; apiKeyId: string }[])
          .filter((e) => e.eventType.startsWith('ApiAuthInvalid'))
          .map((e) => ({ type: e.eventType, keyId: e.apiKeyId, message: e.message }));
        expect(refusals).toHaveLength(3);
        expect(refusals).toEqual(
          expect.arrayContaining([
            { type: 'ApiAuthInvalidSecretKeyUsed', keyId: app.apiSecret.slice(-4), message: 'A secret key that does not match the key with this id was used 40 times from 203.0.113.7 within a minute.' },
            { type: 'ApiAuthInvalidPublicKeyUsed', keyId: app.apiKey.slice(-4), message: 'A public key that does not match the key with this id was used 30 times from 203.0.113.7 within a minute.' },
            { type: 'ApiAuthInvalidSecretKeyUsed', keyId: app.apiSecret.slice(-4), message: 'A secret key that does not match the key with this id was used 5 times from 198.51.100.9 within a minute.' },
          ]),
        );
      } finally {
        await second?.stop();
        await first.stop();
        await database.drop();
      }
    },
    PROCESS_TIMEOUT_MS,
  );
});
