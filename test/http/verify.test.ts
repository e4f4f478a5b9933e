import { ORIGIN, RPID, registerPasskey, signIn, verifyToken } from '../support/ceremonies';
import { expectProblem, expectValidationProblem, useTestService } from '../support/problems';
import { CHROME_ON_MAC, GUID, bareVerifyPayload, expiredToken, privateApi, requestRegisterToken, setFeatures, tokenServiceAt } from '../support/privateApi';
import { providers, type TestApp, type TestService } from '../support/testService';

/** A credential id whose base64 and base64url forms differ (`+`, `/` versus `-`, `_`). */
const CREDENTIAL_ID = Buffer.from('fbffbf0123fbffbf4567fbffbf89abcd', 'hex');

const lifetimeOf = (result: { timestamp: string; expiresAt: string }) => Date.parse(result.expiresAt) - Date.parse(result.timestamp);

const generateToken = (svc: TestService, app: TestApp, body: Record<string, unknown>) => privateApi(svc, app).post('/signin/generate-token', body);

describe.each(providers())('POST /signin/verify and /signin/generate-token on %s', (provider) => {
  const service = useTestService(provider);

  describe('the verification result', () => {
    it('carries every field for a passkey sign-in', async () => {
      const svc = service();
      const app = await svc.createApp();
      const reg = await registerPasskey(svc, app, { userId: 'u1', nickname: 'work laptop', authenticator: { credentialId: CREDENTIAL_ID, backupEligible: true, backupState: true } });
      const startedAt = Date.now();
      const done = await signIn(svc, app, reg.credential, { userId: 'u1', headers: { 'User-Agent': CHROME_ON_MAC, 'CF-IPCountry': 'NL' } });
      const res = await verifyToken(svc, app, done.complete.body.token);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.body).toEqual({
        success: true,
        userId: 'u1',
        timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        rpid: RPID,
        rpId: RPID,
        origin: ORIGIN,
        device: expect.stringContaining('Chrome'),
        country: 'NL',
        nickname: 'work laptop',
        expiresAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        tokenId: expect.stringMatching(GUID),
        type: 'passkey_signin',
        credentialId: CREDENTIAL_ID.toString('base64'),
        purpose: 'sign-in',
        backupEligible: true,
        backupState: true,
      });
      expect(res.body.credentialId).toMatch(/[+/]/);
      expect(Date.parse(res.body.timestamp)).toBeGreaterThanOrEqual(startedAt);
      expect(Date.parse(res.body.timestamp)).toBeLessThanOrEqual(Date.now());
      expect(lifetimeOf(res.body)).toBe(120_000);
    });

    it('lives as long as the purpose says (step-up: 180 seconds)', async () => {
      const svc = service();
      const app = await svc.createApp();
      const reg = await registerPasskey(svc, app);
      const done = await signIn(svc, app, reg.credential, { purpose: 'step-up' });
      const res = await verifyToken(svc, app, done.complete.body.token);
      expect(res.body).toMatchObject({ purpose: 'step-up', type: 'passkey_signin' });
      expect(lifetimeOf(res.body)).toBe(180_000);
    });

    it('gives each token its own tokenId', async () => {
      const svc = service();
      const app = await svc.createApp();
      const reg = await registerPasskey(svc, app);
      const first = await verifyToken(svc, app, (await signIn(svc, app, reg.credential)).complete.body.token);
      const second = await verifyToken(svc, app, (await signIn(svc, app, reg.credential)).complete.body.token);
      expect(first.body.tokenId).not.toBe(second.body.tokenId);
    });
  });

  describe('single use and expiry', () => {
    it('verifies a passkey sign-in token once; the second time is token_already_used', async () => {
      const svc = service();
      const app = await svc.createApp();
      const reg = await registerPasskey(svc, app);
      const { token } = (await signIn(svc, app, reg.credential)).complete.body;
      expect((await verifyToken(svc, app, token)).status).toBe(200);
      expectProblem(await verifyToken(svc, app, token), 400, 'token_already_used');
    });

    it('verifies a passkey registration token once', async () => {
      const svc = service();
      const app = await svc.createApp();
      const { token } = (await registerPasskey(svc, app)).complete.body;
      expect((await verifyToken(svc, app, token)).status).toBe(200);
      expectProblem(await verifyToken(svc, app, token), 400, 'token_already_used');
    });

    it('verifies a generated token once', async () => {
      const svc = service();
      const app = await svc.createApp();
      const { token } = (await generateToken(svc, app, { userId: 'u1' })).body;
      expect((await verifyToken(svc, app, token)).status).toBe(200);
      expectProblem(await verifyToken(svc, app, token), 400, 'token_already_used');
    });

    it('lets only one of two concurrent verifications of a token succeed', async () => {
      const svc = service();
      const app = await svc.createApp();
      const { token } = (await generateToken(svc, app, { userId: 'u1' })).body;
      const results = await Promise.all([verifyToken(svc, app, token), verifyToken(svc, app, token)]);
      expect(results.map((r) => r.status).sort()).toEqual([200, 400]);
    });

    it('refuses an expired token with 403 expired_token and says how long ago', async () => {
      const svc = service();
      const app = await svc.createApp();
      const payload = bareVerifyPayload(app.appId, 'generated_signin', 'u1');
      const token = await expiredToken(svc, app, 'verify', { ...payload }, 10_000);
      const res = await verifyToken(svc, app, token);
      expectProblem(res, 403, 'expired_token');
      expect(res.body.title).toMatch(/^The token expired 1[01] seconds ago\.$/);
    });
  });

  describe('tokens that are not this app’s verify tokens', () => {
    it.each([
      ['absent', {}],
      ['null', { token: null }],
      ['empty', { token: '' }],
    ])('answers missing_token when the token is %s', async (_case, body) => {
      const svc = service();
      const app = await svc.createApp();
      expectProblem(await privateApi(svc, app).post('/signin/verify', body), 400, 'missing_token');
    });

    it('refuses a register_ token with invalid_token', async () => {
      const svc = service();
      const app = await svc.createApp();
      const { token } = (await requestRegisterToken(svc, app, { userId: 'u1', username: 'a' })).body;
      const res = await verifyToken(svc, app, token);
      expectProblem(res, 400, 'invalid_token');
      expect(res.body.title).toContain("should start with 'verify_'");
    });

    it('refuses a token of another app with invalid_token, and does not spend it', async () => {
      const svc = service();
      const appA = await svc.createApp();
      const appB = await svc.createApp();
      const { token } = (await generateToken(svc, appA, { userId: 'u1' })).body;
      expectProblem(await verifyToken(svc, appB, token), 400, 'invalid_token');
      expect((await verifyToken(svc, appA, token)).body).toMatchObject({ success: true, userId: 'u1' });
    });

    it('refuses a forged token (payload changed, MAC kept) with invalid_token', async () => {
      const svc = service();
      const app = await svc.createApp();
      const { token } = (await generateToken(svc, app, { userId: 'u1' })).body;
      const [body, keyId, mac] = token.slice('verify_'.length).split('.');
      const payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
      const forged = Buffer.from(JSON.stringify({ ...payload, userId: 'admin' })).toString('base64url');
      expectProblem(await verifyToken(svc, app, `verify_${forged}.${keyId}.${mac}`), 400, 'invalid_token');
    });

    it.each([['verify_'], ['verify_###'], ['verify_abc.def.ghi']])('refuses the malformed token %s with invalid_token_format', async (token) => {
      const svc = service();
      const app = await svc.createApp();
      expectProblem(await verifyToken(svc, app, token), 400, 'invalid_token_format');
    });
  });

  describe('POST /signin/generate-token', () => {
    it('makes a generated_signin token for sign-in that lives 120 seconds by default', async () => {
      const svc = service();
      const app = await svc.createApp();
      const res = await generateToken(svc, app, { userId: 'u1' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ token: expect.stringMatching(/^verify_/) });
      const verified = await verifyToken(svc, app, res.body.token);
      expect(verified.body).toMatchObject({ success: true, userId: 'u1', type: 'generated_signin', purpose: 'sign-in', tokenId: expect.stringMatching(GUID) });
      expect(lifetimeOf(verified.body)).toBe(120_000);
    });

    it('carries the purpose, origin and RP ID it is given', async () => {
      const svc = service();
      const app = await svc.createApp();
      const { token } = (await generateToken(svc, app, { userId: 'u1', purpose: 'step-up', origin: ORIGIN, rpid: RPID })).body;
      expect((await verifyToken(svc, app, token)).body).toMatchObject({ purpose: 'step-up', origin: ORIGIN, rpid: RPID, rpId: RPID });
    });

    it('accepts a timeToLive of 604800 seconds', async () => {
      const svc = service();
      const app = await svc.createApp();
      const { token } = (await generateToken(svc, app, { userId: 'u1', timeToLive: 604800 })).body;
      expect(lifetimeOf((await verifyToken(svc, app, token)).body)).toBe(604_800_000);
    });

    it('accepts a timeToLive of 1 second, after which the token is expired', async () => {
      const svc = service();
      const app = await svc.createApp();
      const res = await generateToken(svc, app, { userId: 'u1', timeToLive: 1 });
      expect(res.status).toBe(200);
      await expect(tokenServiceAt(svc, 0).open('verify', res.body.token, app.appId)).resolves.toMatchObject({ userId: 'u1' });
      await expect(tokenServiceAt(svc, 2000).open('verify', res.body.token, app.appId)).rejects.toMatchObject({ code: 'expired_token' });
    });

    it.each([0, 604801, -5, 1.5, 'soon'])('rejects a timeToLive of %p', async (timeToLive) => {
      const svc = service();
      const app = await svc.createApp();
      expectValidationProblem(await generateToken(svc, app, { userId: 'u1', timeToLive }), 'timeToLive');
    });

    it('requires a userId', async () => {
      const svc = service();
      const app = await svc.createApp();
      expectValidationProblem(await generateToken(svc, app, {}), 'userId');
      expectValidationProblem(await generateToken(svc, app, { userId: '' }), 'userId');
    });

    it('answers 403 generate_token_disabled while the feature is off', async () => {
      const svc = service();
      const app = await svc.createApp();
      await setFeatures(svc, app, { isGenerateSignInTokenEndpointEnabled: false });
      const res = await generateToken(svc, app, { userId: 'u1' });
      expectProblem(res, 403, 'generate_token_disabled');
      expect(res.body.title).toBe("The 'POST /signin/generate-token' endpoint is disabled");
      await setFeatures(svc, app, { isGenerateSignInTokenEndpointEnabled: true });
      expect((await generateToken(svc, app, { userId: 'u1' })).status).toBe(200);
    });
  });
});
