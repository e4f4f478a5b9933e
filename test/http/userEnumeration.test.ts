/**
 * No user enumeration through signin/begin, on service processes: a name nobody has (or whose user
 * has no passkey) gets an allow list shaped like a real one, the same on every call and on every
 * replica, and such a sign-in cannot complete. (That it costs the same database calls as a real
 * answer is in test/http/hotPath.test.ts.)
 */
import { ORIGIN, RPID, registerPasskey, signIn } from '../support/ceremonies';
import { expectProblem } from '../support/http';
import { startServiceProcess } from '../support/serviceProcess';
import type { TestApp } from '../support/testService';

const PROCESS_TIMEOUT_MS = 120_000;

interface Descriptor {
  type: string;
  id: string;
  transports?: string[];
}

describe('signin/begin with a name nobody has, on service processes', () => {
  let first: Awaited<ReturnType<typeof startServiceProcess>>;
  let second: Awaited<ReturnType<typeof startServiceProcess>>;
  let app: TestApp;
  beforeAll(async () => {
    first = await startServiceProcess();
    // A second process on the same database: what a restart, or another replica, answers.
    second = await startServiceProcess({}, first.database);
    app = await first.createApp();
  }, PROCESS_TIMEOUT_MS);
  afterAll(async () => {
    await second?.stop();
    await first?.stop();
  }, PROCESS_TIMEOUT_MS);

  const begin = async (svc: typeof first, name: { alias?: string; userId?: string }, key = app.apiKey) => {
    const res = await svc.http.post('/signin/begin').set('ApiKey', key).send({ ...name, RPID, Origin: ORIGIN });
    expect(res.status).toBe(200);
    return res.body as { session: string; data: Record<string, unknown> & { allowCredentials: Descriptor[] } };
  };
  /** What a page could compare besides the ids: the answer's fields and the options' fields. */
  const shape = (body: { session: string; data: Record<string, unknown> }) => ({ keys: Object.keys(body), data: Object.keys(body.data).sort() });

  it(
    'answers a known and an unknown alias with lists of the same shape, and the unknown one with the same ids every time, on every process',
    async () => {
      const known = await registerPasskey(first, app, { userId: 'alice', aliases: ['alice@example.com'] });
      expect(known.complete.status).toBe(200);
      // A user with an alias and no passkey yet is answered like a stranger, not with an empty list.
      expect((await first.http.post('/alias').set('ApiSecret', app.apiSecret).send({ userId: 'bob', aliases: ['bob@example.com'] })).status).toBe(204);

      const real = await begin(first, { alias: 'alice@example.com' });
      expect(real.data.allowCredentials).toEqual([{ type: 'public-key', id: known.credential.idB64 }]);
      for (const name of [{ alias: 'nobody@example.com' }, { userId: 'nobody' }, { alias: 'bob@example.com' }, { userId: 'bob' }]) {
        const decoy = await begin(first, name);
        const ids = decoy.data.allowCredentials.map((d) => d.id);
        expect({ name, shape: shape(decoy) }).toEqual({ name, shape: shape(real) });
        expect(decoy.data.allowCredentials.length).toBeGreaterThanOrEqual(1);
        expect(decoy.data.allowCredentials.length).toBeLessThanOrEqual(2);
        for (const descriptor of decoy.data.allowCredentials) {
          expect(Object.keys(descriptor)).toEqual(Object.keys(real.data.allowCredentials[0]));
          expect(descriptor.type).toBe('public-key');
          expect([16, 20, 32, 64]).toContain(Buffer.from(descriptor.id, 'base64url').length);
        }
        expect(ids).not.toContain(known.credential.idB64);
        // Stable: again on this process, and on the other one.
        expect((await begin(first, name)).data.allowCredentials).toEqual(decoy.data.allowCredentials);
        expect((await begin(second, name)).data.allowCredentials).toEqual(decoy.data.allowCredentials);
      }
      // bob by alias and bob by id are one user, as a real user's lists are.
      expect((await begin(first, { alias: 'bob@example.com' })).data.allowCredentials).toEqual((await begin(first, { userId: 'bob' })).data.allowCredentials);
      // The same name in another app is another list.
      const other = await first.createApp();
      expect((await begin(first, { alias: 'nobody@example.com' }, other.apiKey)).data.allowCredentials).not.toEqual((await begin(first, { alias: 'nobody@example.com' })).data.allowCredentials);
    },
    PROCESS_TIMEOUT_MS,
  );

  it(
    "cannot be completed: a passkey answering a decoy sign-in is refused like another user's",
    async () => {
      const mallory = await registerPasskey(first, app, { userId: 'mallory' });
      const attempt = await signIn(second, app, mallory.credential, { alias: 'nobody@example.com' });
      expectProblem(attempt.complete, 400, 'signin_complete_error');
      const againstReal = await signIn(second, app, mallory.credential, { userId: 'alice' });
      expectProblem(againstReal.complete, 400, 'signin_complete_error');
      expect(attempt.complete.body.detail).toBe(againstReal.complete.body.detail);
    },
    PROCESS_TIMEOUT_MS,
  );
});
