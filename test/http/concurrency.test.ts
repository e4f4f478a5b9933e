import { ORIGIN, RPID, registerPasskey } from '../support/ceremonies';
import { expectProblem, useTestService } from '../support/problems';
import { aliasesOf, credentialsOf, privateApi, publicApi } from '../support/privateApi';
import { createCredential } from '../support/softwareAuthenticator';
import { providers } from '../support/testService';

/** The same request many times at once: exactly one wins where one must, and never a 5xx. */

describe.each(providers())('concurrency on %s', (provider) => {
  const service = useTestService(provider);

  describe('concurrency', () => {
    it('twenty identical register/complete calls register the passkey once; the rest are challenge_already_used', async () => {
      const svc = service();
      const app = await svc.createApp();
      const tokenRes = await privateApi(svc, app).post('/register/token', { userId: 'u1', username: 'u1', aliases: ['a1', 'a2'] });
      const begin = await publicApi(svc, app).post('/register/begin', { token: tokenRes.body.token, Origin: ORIGIN, RPID });
      const { response } = createCredential({ challenge: begin.body.data.challenge, rpId: RPID, origin: ORIGIN, userHandle: begin.body.data.user.id });
      const answers = await Promise.all(Array.from({ length: 20 }, () => publicApi(svc, app).post('/register/complete', { session: begin.body.session, Origin: ORIGIN, RPID, response })));
      expect(answers.filter((r) => r.status === 200)).toHaveLength(1);
      for (const res of answers.filter((r) => r.status !== 200)) expectProblem(res, 400, 'challenge_already_used');
      expect(await credentialsOf(svc, app, 'u1')).toHaveLength(1);
    });

    it('five concurrent alias replacements for one user all succeed; none is mistaken for another user’s alias', async () => {
      const svc = service();
      const app = await svc.createApp();
      const sets = [['x1', 'x2', 'x3'], ['x3', 'x2', 'x1'], ['x2', 'x1', 'x3'], ['x1', 'x3', 'x2'], ['x3', 'x1', 'x2']];
      const answers = await Promise.all(sets.map((aliases) => privateApi(svc, app).post('/alias', { userId: 'u1', aliases, hashing: false })));
      expect(answers.map((r) => r.status)).toEqual(Array(5).fill(204));
      expect(((await aliasesOf(svc, app, 'u1')) as { plaintext: string }[]).map((a) => a.plaintext).sort()).toEqual(['x1', 'x2', 'x3']);
    });

    it('five concurrent registrations of one user with the same aliases all succeed', async () => {
      const svc = service();
      const app = await svc.createApp();
      const answers = await Promise.all(Array.from({ length: 5 }, () => registerPasskey(svc, app, { userId: 'u1', aliases: ['a1', 'a2', 'a3'] })));
      expect(answers.map((r) => [r.complete.status, r.complete.status === 200 ? "" : JSON.stringify(r.complete.body)])).toEqual(Array(5).fill([200, ""]));
      expect(await credentialsOf(svc, app, 'u1')).toHaveLength(5);
    });

    it('concurrent replacements by different users of the same aliases leave exactly one owner', async () => {
      const svc = service();
      const app = await svc.createApp();
      const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => privateApi(svc, app).post('/alias', { userId: `u${i}`, aliases: i % 2 ? ['s1', 's2'] : ['s2', 's1'] })));
      expect(answers.filter((r) => r.status === 204)).toHaveLength(1);
      for (const res of answers.filter((r) => r.status !== 204)) expectProblem(res, 409, 'alias_conflict');
    });

    it('twenty concurrent users/delete calls all answer 204', async () => {
      const svc = service();
      const app = await svc.createApp();
      await registerPasskey(svc, app, { userId: 'u1', aliases: ['gone@example.com'] });
      const answers = await Promise.all(Array.from({ length: 20 }, () => privateApi(svc, app).post('/users/delete', { userId: 'u1' })));
      expect(answers.map((r) => r.status)).toEqual(Array(20).fill(204));
      expect((await privateApi(svc, app).get('/users/count')).body).toEqual({ count: 0 });
    });
  });
});
