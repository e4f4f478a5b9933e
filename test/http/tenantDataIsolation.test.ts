import { ORIGIN, RPID, registerPasskey, signIn, verifyToken } from '../support/ceremonies';
import { expectProblem, useTestService } from '../support/problems';
import { aliasesOf, credentialsOf, privateApi, publicApi } from '../support/privateApi';
import { getAssertion } from '../support/softwareAuthenticator';
import { MANAGEMENT_KEY, providers } from '../support/testService';

/**
 * One app's keys and tokens never reach another app's users, aliases, credentials or tokens,
 * whatever they are used for (the keys themselves: tenantIsolation.test.ts).
 */

describe.each(providers())('tenant data isolation on %s', (provider) => {
  const service = useTestService(provider);

  describe('tenant isolation', () => {
    it("app B's secret sees and changes nothing of app A's users, aliases or credentials", async () => {
      const svc = service();
      const a = await svc.createApp();
      const b = await svc.createApp();
      const reg = await registerPasskey(svc, a, { userId: 'victim', aliases: ['victim@example.com'], aliasHashing: false });
      expect(reg.complete.status).toBe(200);
      const asB = privateApi(svc, b);
      const before = (await privateApi(svc, a).get('/users/list')).body;

      expect((await asB.get('/alias/list?userId=victim')).body).toEqual([]);
      expect((await asB.get('/credentials/list?userId=victim')).body).toEqual([]);
      expect((await asB.post('/credentials/list', { userId: 'victim' })).body).toEqual([]);
      expect((await asB.get('/users/list')).body).toEqual([]);
      expect((await asB.get('/users/count')).body).toEqual({ count: 0 });
      expectProblem(await asB.post('/signin/verify', { token: reg.complete.body.token }), 400, 'invalid_token');
      expect((await asB.post('/credentials/delete', { credentialId: reg.credential.idB64 })).status).toBe(204);
      expect((await asB.post('/users/delete', { userId: 'victim' })).status).toBe(204);
      expect((await asB.post('/alias', { userId: 'victim', aliases: [] })).status).toBe(204);
      expect((await asB.post('/alias', { userId: 'other', aliases: ['victim@example.com'] })).status).toBe(204);
      const offeredByB = (await publicApi(svc, b).post('/signin/begin', { alias: 'victim@example.com', Origin: ORIGIN, RPID })).body.data.allowCredentials as { id: string }[];
      expect(offeredByB.map((d) => d.id)).not.toContain(reg.credential.idB64);

      expect((await privateApi(svc, a).get('/users/list')).body).toEqual(before);
      expect(await credentialsOf(svc, a, 'victim')).toHaveLength(1);
      expect((await verifyToken(svc, a, reg.complete.body.token)).body).toMatchObject({ success: true, userId: 'victim' });
      expect((await signIn(svc, a, reg.credential, { alias: 'victim@example.com' })).complete.status).toBe(200);
    });

    it("app A's public key cannot use app B's register token or session, nor sign in with B's passkey", async () => {
      const svc = service();
      const a = await svc.createApp();
      const b = await svc.createApp();
      const tokenOfB = (await privateApi(svc, b).post('/register/token', { userId: 'u1', username: 'u1' })).body.token;
      expectProblem(await publicApi(svc, a).post('/register/begin', { token: tokenOfB, Origin: ORIGIN, RPID }), 400, 'invalid_token');
      const regB = await registerPasskey(svc, b, { userId: 'u1' });
      const begin = await publicApi(svc, b).post('/signin/begin', { Origin: ORIGIN, RPID });
      const response = getAssertion(regB.credential, { challenge: begin.body.data.challenge, rpId: RPID, origin: ORIGIN });
      expectProblem(await publicApi(svc, a).post('/signin/complete', { session: begin.body.session, Origin: ORIGIN, RPID, response }), 400, 'invalid_token');
      expectProblem((await signIn(svc, a, regB.credential)).complete, 400, 'unknown_credential');
    });

    it('the same credential id registered in two apps belongs to each separately', async () => {
      const svc = service();
      const a = await svc.createApp();
      const b = await svc.createApp();
      const inA = await registerPasskey(svc, a, { userId: 'alice' });
      const inB = await registerPasskey(svc, b, { userId: 'bob', authenticator: { credentialId: inA.credential.id } });
      expect([inA.complete.status, inB.complete.status]).toEqual([200, 200]);
      expect((await privateApi(svc, b).post('/credentials/delete', { credentialId: inA.credential.idB64 })).status).toBe(204);
      expect(await credentialsOf(svc, b, 'bob')).toEqual([]);
      expect(await credentialsOf(svc, a, 'alice')).toHaveLength(1);
      expect((await signIn(svc, a, inA.credential)).complete.status).toBe(200);
    });

    it("deleting app B leaves app A's keys, users and tokens intact", async () => {
      const svc = service();
      const a = await svc.createApp();
      const b = await svc.createApp();
      const regA = await registerPasskey(svc, a, { userId: 'u1', aliases: ['a@example.com'] });
      await registerPasskey(svc, b, { userId: 'u1', aliases: ['a@example.com'] });
      expect((await svc.http.delete(`/admin/apps/${b.appId}`).set('ManagementKey', MANAGEMENT_KEY)).status).toBe(200);
      expect(await credentialsOf(svc, a, 'u1')).toHaveLength(1);
      expect(await aliasesOf(svc, a, 'u1')).toHaveLength(1);
      expect((await verifyToken(svc, a, regA.complete.body.token)).status).toBe(200);
      expect((await signIn(svc, a, regA.credential, { alias: 'a@example.com' })).complete.status).toBe(200);
    });

    it("tokens of a deleted app are refused by a new app created with the same id", async () => {
      const svc = service();
      const old = await svc.createApp();
      const registerToken = (await privateApi(svc, old).post('/register/token', { userId: 'u1', username: 'u1' })).body.token;
      const generated = (await privateApi(svc, old).post('/signin/generate-token', { userId: 'u1' })).body.token;
      const passkey = (await registerPasskey(svc, old, { userId: 'u1' })).complete.body.token;
      expect((await svc.http.delete(`/admin/apps/${old.appId}`).set('ManagementKey', MANAGEMENT_KEY)).status).toBe(200);

      const reborn = await svc.createApp({ appId: old.appId });
      expectProblem(await publicApi(svc, reborn).post('/register/begin', { token: registerToken, Origin: ORIGIN, RPID }), 400, 'invalid_token');
      expectProblem(await verifyToken(svc, reborn, generated), 400, 'invalid_token');
      expectProblem(await verifyToken(svc, reborn, passkey), 400, 'invalid_token');
      expect(await credentialsOf(svc, reborn, 'u1')).toEqual([]);
    });
  });
});
