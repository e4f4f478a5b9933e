/**
 * The older API generation at /v3 (and /api/v3): every difference the spec's Versioning section
 * lists, each asserted next to what the current generation answers for the same request, and the
 * rest behaving exactly as the current generation. Registrations are completed, and sign-ins
 * made, with the software authenticator posting what the browser client posts to the current
 * public API.
 */
import { ORIGIN, RPID, finishRegistration, registerPasskey, signIn } from '../support/ceremonies';
import { expectProblem, expectValidationProblem, useTestService } from '../support/problems';
import { privateApi, publicApi, setFeatures } from '../support/privateApi';
import { providers, type TestApp, type TestService } from '../support/testService';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** `/v3/register/token` (or `/api/v3/...`): the bare string it answers. */
async function legacyRegisterToken(svc: TestService, app: TestApp, body: Record<string, unknown>, base = '/v3'): Promise<string> {
  const res = await privateApi(svc, app).post(`${base}/register/token`, body);
  expect({ status: res.status, contentType: res.headers['content-type'] }).toEqual({ status: 200, contentType: 'application/json; charset=utf-8' });
  expect(typeof res.body).toBe('string');
  return res.body as string;
}

/** What `/register/begin` offers the browser for a register token. */
async function beginOptions(svc: TestService, app: TestApp, token: string) {
  const begin = await publicApi(svc, app).post('/register/begin', { token, RPID, Origin: ORIGIN });
  expect(begin.status).toBe(200);
  return begin.body.data;
}

describe.each(providers())('the older API generation (/v3) on %s', (provider) => {
  const service = useTestService(provider);

  describe('POST /register/token', () => {
    it('answers a bare JSON string where the current generation answers {token}', async () => {
      const svc = service();
      const app = await svc.createApp();
      const current = await privateApi(svc, app).post('/register/token', { userId: 'u1', username: 'alice' });
      expect(current.body).toEqual({ token: expect.stringMatching(/^register_/) });

      for (const base of ['/v3', '/api/v3']) {
        const res = await privateApi(svc, app).post(`${base}/register/token`, { userId: 'u1', username: 'alice' });
        expect(res.status).toBe(200);
        expect(res.text).toMatch(/^"register_[A-Za-z0-9_.-]+"$/);
        expect(res.body).toEqual(expect.stringMatching(/^register_/));
      }
    });

    it('makes a token that the current public API completes; its verify token checks out under /v3 and the current generation alike', async () => {
      const svc = service();
      const app = await svc.createApp();
      const token = await legacyRegisterToken(svc, app, { userId: 'legacy-user', username: 'alice@example.com', displayname: 'Alice' });
      const { complete, credential } = await finishRegistration(svc, app, token);
      expect(complete.status).toBe(200);

      const verified = await privateApi(svc, app).post('/v3/signin/verify', { token: complete.body.token });
      expect(verified.status).toBe(200);
      expect(verified.body).toMatchObject({ success: true, username: 'legacy-user', origin: ORIGIN, rpid: RPID });

      // The passkey is an ordinary one: a current sign-in works, and its token verifies under the current generation.
      const signin = await signIn(svc, app, credential, { userId: 'legacy-user' });
      expect(signin.complete.status).toBe(200);
      const current = await privateApi(svc, app).post('/signin/verify', { token: signin.complete.body.token });
      expect(current.body).toMatchObject({ success: true, userId: 'legacy-user', type: 'passkey_signin' });
    });

    it('defaults authType to platform where the current authenticatorType defaults to any', async () => {
      const svc = service();
      const app = await svc.createApp();
      const current = await privateApi(svc, app).post('/register/token', { userId: 'u1', username: 'alice' });
      expect((await beginOptions(svc, app, current.body.token)).authenticatorSelection).not.toHaveProperty('authenticatorAttachment');

      const legacy = await beginOptions(svc, app, await legacyRegisterToken(svc, app, { userId: 'u1', username: 'alice' }));
      expect(legacy).toMatchObject({
        attestation: 'none',
        authenticatorSelection: { authenticatorAttachment: 'platform', residentKey: 'required', userVerification: 'preferred' },
        user: { name: 'alice', displayName: 'alice' },
      });
    });

    it.each([
      [{ authType: 'cross-platform' }, { authenticatorAttachment: 'cross-platform' }],
      [{ authType: 'CrossPlatform' }, { authenticatorAttachment: 'cross-platform' }],
      [{ userVerification: 'discourage' }, { userVerification: 'discouraged' }],
      [{ userVerification: 'Required' }, { userVerification: 'required' }],
    ])('takes %j', async (field, selection) => {
      const svc = service();
      const app = await svc.createApp();
      const options = await beginOptions(svc, app, await legacyRegisterToken(svc, app, { userId: 'u1', username: 'alice', ...field }));
      expect(options.authenticatorSelection).toMatchObject(selection);
    });

    it('takes attType with the same plan rules as the current attestation', async () => {
      const svc = service();
      const trial = await svc.createApp();
      for (const [path, body] of [
        ['/register/token', { attestation: 'direct' }],
        ['/v3/register/token', { attType: 'direct' }],
      ] as const) {
        expectProblem(await privateApi(svc, trial).post(path, { userId: 'u1', username: 'alice', ...body }), 400, 'attestation_not_supported_on_plan');
      }
      expectProblem(await privateApi(svc, trial).post('/v3/register/token', { userId: 'u1', username: 'alice', attType: 'enterprise' }), 400, 'invalid_attestation');

      const enterprise = await svc.createApp({ plan: 'enterprise' });
      const options = await beginOptions(svc, enterprise, await legacyRegisterToken(svc, enterprise, { userId: 'u1', username: 'alice', attType: 'indirect' }));
      expect(options.attestation).toBe('indirect');
    });

    it('takes displayname and expiresAt as the current generation does', async () => {
      const svc = service();
      const app = await svc.createApp();
      const expiresAt = new Date(Date.now() + 600_000).toISOString();
      const token = await legacyRegisterToken(svc, app, { userId: 'u1', username: 'alice', displayname: 'Alice Liddell', expiresAt });
      expect((await beginOptions(svc, app, token)).user.displayName).toBe('Alice Liddell');
      await expect(svc.services.tokens.open('register', token, app.appId)).resolves.toMatchObject({ exp: Date.parse(expiresAt) });
    });

    it('ignores aliases, discoverable and aliasHashing, which the current generation honours', async () => {
      const svc = service();
      const app = await svc.createApp();
      const extras = { aliases: ['alice@example.com'], discoverable: false, aliasHashing: false };
      const current = await registerPasskey(svc, app, { userId: 'current', tokenBody: { ...extras, aliases: ['current@example.com'] } });
      expect(current.begin.body.data.authenticatorSelection.residentKey).toBe('discouraged');
      expect((await privateApi(svc, app).get('/alias/list?userId=current')).body).toEqual([{ userId: 'current', alias: expect.any(String), plaintext: 'current@example.com' }]);

      const token = await legacyRegisterToken(svc, app, { userId: 'legacy', username: 'legacy', ...extras });
      const legacy = await finishRegistration(svc, app, token);
      expect(legacy.complete.status).toBe(200);
      expect(legacy.begin.body.data.authenticatorSelection.residentKey).toBe('required');
      expect((await privateApi(svc, app).get('/alias/list?userId=legacy')).body).toEqual([]);
    });

    it('refuses what it does not know with the current validation problems', async () => {
      const svc = service();
      const app = await svc.createApp();
      expectValidationProblem(await privateApi(svc, app).post('/v3/register/token', { userId: 'u1' }), 'username');
      expectValidationProblem(await privateApi(svc, app).post('/v3/register/token', { userId: 'u1', username: 'a', authType: 'any' }), 'authType');
      expectValidationProblem(await privateApi(svc, app).post('/v3/register/token', { userId: 'u1', username: 'a', userVerification: 'sometimes' }), 'userVerification');
      expectProblem(await svc.http.post('/v3/register/token').send({ userId: 'u1', username: 'a' }), 401, 'ApiSecret');
    });
  });

  describe('POST /signin/verify', () => {
    it('answers username where the current generation answers userId, and no tokenId or type', async () => {
      const svc = service();
      const app = await svc.createApp();
      const { credential } = await registerPasskey(svc, app, { userId: 'user-7' });
      // One after the other: concurrent sign-ins with one authenticator may arrive out of counter order (a clone warning).
      const tokens: string[] = [];
      for (let i = 0; i < 2; i++) tokens.push((await signIn(svc, app, credential, { userId: 'user-7' })).complete.body.token as string);

      const current = await privateApi(svc, app).post('/signin/verify', { token: tokens[0] });
      expect(current.body).toMatchObject({ success: true, userId: 'user-7', tokenId: expect.any(String), type: 'passkey_signin' });

      // A sign-in token from the current public API verifies under /v3.
      const legacy = await privateApi(svc, app).post('/v3/signin/verify', { token: tokens[1] });
      expect(legacy.status).toBe(200);
      const { userId: _userId, tokenId: _tokenId, type: _type, ...shared } = current.body;
      expect(Object.keys(legacy.body).sort()).toEqual([...Object.keys(shared), 'username'].sort());
      expect(legacy.body).toMatchObject({ success: true, username: 'user-7', rpid: RPID, origin: ORIGIN, credentialId: current.body.credentialId });
      expect(legacy.body.timestamp).toMatch(ISO);
      expect(legacy.body.expiresAt).toMatch(ISO);
    });

    it('redeems the same single-use tokens as the current generation', async () => {
      const svc = service();
      const app = await svc.createApp();
      const { credential } = await registerPasskey(svc, app, { userId: 'user-8' });
      const { token } = (await signIn(svc, app, credential)).complete.body;
      expect((await privateApi(svc, app).post('/v3/signin/verify', { token })).status).toBe(200);
      expectProblem(await privateApi(svc, app).post('/signin/verify', { token }), 400, 'token_already_used');
      expectProblem(await privateApi(svc, app).post('/v3/signin/verify', { token }), 400, 'token_already_used');
      expectProblem(await privateApi(svc, app).post('/v3/signin/verify', { token: 'register_x' }), 400, 'invalid_token');
    });
  });

  describe('/credentials/list', () => {
    it('is POST only: GET is a 405 naming POST, where the current generation answers GET', async () => {
      const svc = service();
      const app = await svc.createApp();
      await registerPasskey(svc, app, { userId: 'user-1' });
      expect((await privateApi(svc, app).get('/credentials/list?userId=user-1')).status).toBe(200);
      for (const base of ['/v3', '/api/v3']) {
        const res = await privateApi(svc, app).get(`${base}/credentials/list?userId=user-1`);
        expectProblem(res, 405, 'method_not_allowed');
        expect(res.headers.allow).toBe('POST');
      }
    });

    it('adds credType to every credential the current generation lists', async () => {
      const svc = service();
      const app = await svc.createApp();
      await registerPasskey(svc, app, { userId: 'user-1' });
      await registerPasskey(svc, app, { userId: 'user-1' });
      const current = await privateApi(svc, app).post('/credentials/list', { userId: 'user-1' });
      expect(current.body).toHaveLength(2);
      expect(current.body[0]).not.toHaveProperty('credType');

      const legacy = await privateApi(svc, app).post('/v3/credentials/list', { UserId: 'user-1' });
      expect(legacy.status).toBe(200);
      expect(legacy.body).toEqual(current.body.map((c: Record<string, unknown>) => ({ ...c, credType: 'none' })));

      await setFeatures(svc, app, { sdkCompatibleLists: true });
      expect((await privateApi(svc, app).post('/v3/credentials/list', { userId: 'user-1' })).body).toEqual({ values: legacy.body });
    });
  });

  describe('POST /credentials/delete', () => {
    it.each(['CredentialId', 'credentialId', 'credentialid'])('takes %s and answers 200 where the current generation answers 204', async (field) => {
      const svc = service();
      const app = await svc.createApp();
      const [first, second] = [await registerPasskey(svc, app, { userId: 'user-1' }), await registerPasskey(svc, app, { userId: 'user-1' })];
      const current = await privateApi(svc, app).post('/credentials/delete', { credentialId: first.credential.idB64 });
      expect(current.status).toBe(204);

      const legacy = await privateApi(svc, app).post('/v3/credentials/delete', { [field]: second.credential.idB64 });
      expect({ status: legacy.status, body: legacy.text }).toEqual({ status: 200, body: '' });
      expect((await privateApi(svc, app).post('/credentials/list', { userId: 'user-1' })).body).toEqual([]);
      expectValidationProblem(await privateApi(svc, app).post('/v3/credentials/delete', {}), 'credentialId');
    });
  });

  describe('POST /account/delete', () => {
    it('exists only under /v3: the app becomes pending deletion, with when keys freeze and when data goes', async () => {
      const svc = service();
      const app = await svc.createApp();
      expectProblem(await privateApi(svc, app).post('/account/delete'), 404, 'not_found');

      const before = Date.now();
      const res = await privateApi(svc, app).post('/v3/account/delete');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ message: expect.stringContaining(`The app '${app.appId}' will be deleted.`), keysFreezeAt: expect.stringMatching(ISO), deleteAt: expect.stringMatching(ISO) });
      const hours = (iso: string) => (Date.parse(iso) - before) / 3_600_000;
      expect(hours(res.body.keysFreezeAt)).toBeCloseTo(24, 1);
      expect(hours(res.body.deleteAt)).toBeCloseTo(14 * 24, 1);
      expect(res.body.message).toContain(res.body.keysFreezeAt);
      expect(res.body.message).toContain(res.body.deleteAt);
      // Keys still work until the freeze.
      expect((await privateApi(svc, app).post('/v3/credentials/list', { userId: 'u' })).status).toBe(200);
      expectProblem(await privateApi(svc, app).post('/v3/account/delete'), 409, 'app_pending_deletion');
      expectProblem(await svc.http.post('/v3/account/delete').set('ApiSecret', app.apiKey), 401, 'ApiSecret');
    });
  });

  describe('everything else is the current generation', () => {
    it('serves the other private endpoints, the public API with its CORS, and the same problems', async () => {
      const svc = service();
      const app = await svc.createApp();
      const secret = privateApi(svc, app);
      expect((await secret.post('/v3/alias', { userId: 'u1', aliases: ['a@example.com'] })).status).toBe(204);
      expect((await secret.get('/v3/alias/list?userId=u1')).body).toEqual([{ userId: 'u1', alias: expect.any(String), plaintext: null }]);
      expect((await secret.post('/v3/signin/generate-token', { userId: 'u1' })).body).toEqual({ token: expect.stringMatching(/^verify_/) });
      expect((await secret.get('/api/v3/users/count')).body).toEqual({ count: 0 });

      const token = await legacyRegisterToken(svc, app, { userId: 'u1', username: 'alice' });
      const begin = await svc.http.post('/v3/register/begin').set('ApiKey', app.apiKey).set('Origin', ORIGIN).send({ token, RPID, Origin: ORIGIN });
      expect(begin.status).toBe(200);
      expect(begin.headers['access-control-allow-origin']).toBe('*');
      const preflight = await svc.http.options('/v3/signin/begin').set('Origin', ORIGIN).set('Access-Control-Request-Method', 'POST');
      expect(preflight.status).toBe(204);

      expectProblem(await svc.http.get('/v3/alias/list?userId=u1'), 401, 'ApiSecret');
      expectProblem(await secret.get('/v3/alias'), 405, 'method_not_allowed');
      expectProblem(await secret.get('/v3/no-such-endpoint'), 404, 'not_found');
    });
  });
});
