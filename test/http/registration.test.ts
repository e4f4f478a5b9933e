import { randomBytes } from 'node:crypto';
import type { Response } from 'supertest';
import { rowCountsOf } from '../support/appData';
import { ORIGIN, RPID, registerPasskey } from '../support/ceremonies';
import { expectProblem, expectValidationProblem, useTestService } from '../support/problems';
import {
  CHROME_ON_MAC,
  aliasesOf,
  beginRegistration,
  credentialsOf,
  flipCharAt,
  privateApi,
  publicApi,
  registerTokenIssuedAgo,
  requestRegisterToken,
} from '../support/privateApi';
import { createCredential } from '../support/softwareAuthenticator';
import { providers, type TestApp, type TestService } from '../support/testService';

/** A registration failure whose detail explains itself without quoting the library's message. */
function expectRegistrationRefused(res: Response, begin: Response, mentions: RegExp): void {
  expectProblem(res, 400, 'fido2_invalid_registration');
  expect(res.body.detail).toMatch(mentions);
  expect(res.body.detail).not.toMatch(/Unexpected|expected|\bgot\b/);
  expect(res.body.detail).not.toContain(begin.body.data.challenge);
}

describe.each(providers())('registration ceremony on %s', (provider) => {
  const service = useTestService(provider);

  async function freshToken(svc: TestService, app: TestApp, userId = 'u1'): Promise<string> {
    return (await requestRegisterToken(svc, app, { userId, username: `${userId}@example.com` })).body.token;
  }

  const begin = (svc: TestService, app: TestApp, token: unknown, origin: unknown = ORIGIN, rpId: unknown = RPID) =>
    publicApi(svc, app).post('/register/begin', { token, Origin: origin, RPID: rpId });

  describe('register/begin: the register token', () => {
    it('refuses an expired token with 403 expired_token and says how long ago', async () => {
      const svc = service();
      const app = await svc.createApp();
      const token = await registerTokenIssuedAgo(svc, app, 10 * 60_000, { userId: 'u1', username: 'alice' });
      const res = await begin(svc, app, token);
      expectProblem(res, 403, 'expired_token');
      expect(res.body.title).toBe('The token expired 8 minutes ago.');
    });

    it.each([
      ['absent', undefined],
      ['null', null],
      ['empty', ''],
    ])('answers missing_token when the token is %s', async (_case, token) => {
      const svc = service();
      const app = await svc.createApp();
      expectProblem(await begin(svc, app, token), 400, 'missing_token');
    });

    it('refuses a token of another kind (a verify_ token) with invalid_token', async () => {
      const svc = service();
      const app = await svc.createApp();
      const verify = (await privateApi(svc, app).post('/signin/generate-token', { userId: 'u1' })).body.token;
      expect(verify).toMatch(/^verify_/);
      const res = await begin(svc, app, verify);
      expectProblem(res, 400, 'invalid_token');
      expect(res.body.title).toContain("should start with 'register_'");
    });

    it.each([['register_!!!'], ['register_abc'], ['register_abc.1.short'], ['register_a.b.c.d']])('refuses the malformed token %s with invalid_token_format', async (token) => {
      const svc = service();
      const app = await svc.createApp();
      expectProblem(await begin(svc, app, token), 400, 'invalid_token_format');
    });

    it('refuses a token issued for another app with invalid_token', async () => {
      const svc = service();
      const appA = await svc.createApp();
      const appB = await svc.createApp();
      const tokenOfB = await freshToken(svc, appB);
      expectProblem(await begin(svc, appA, tokenOfB), 400, 'invalid_token');
      expect((await begin(svc, appB, tokenOfB)).status).toBe(200);
    });

    it('refuses a token whose MAC was altered with invalid_token', async () => {
      const svc = service();
      const app = await svc.createApp();
      const token = await freshToken(svc, app);
      expectProblem(await begin(svc, app, flipCharAt(token, token.length - 20)), 400, 'invalid_token');
    });

    it('refuses a token whose payload was altered with invalid_token', async () => {
      const svc = service();
      const app = await svc.createApp();
      const token = await freshToken(svc, app, 'victim');
      const [body, keyId, mac] = token.slice('register_'.length).split('.');
      const payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
      const forged = Buffer.from(JSON.stringify({ ...payload, userId: 'attacker' })).toString('base64url');
      expectProblem(await begin(svc, app, `register_${forged}.${keyId}.${mac}`), 400, 'invalid_token');
    });
  });

  describe('register/begin: origin and RP ID', () => {
    it('requires an Origin', async () => {
      const svc = service();
      const app = await svc.createApp();
      const token = await freshToken(svc, app);
      const res = await publicApi(svc, app).post('/register/begin', { token, RPID });
      expectProblem(res, 400, 'missing_origin');
    });

    it('refuses an RP ID that is neither the origin’s host nor a parent of it', async () => {
      const svc = service();
      const app = await svc.createApp();
      expectProblem(await begin(svc, app, await freshToken(svc, app), ORIGIN, 'other.example.org'), 400, 'origin_not_allowed');
      expectProblem(await begin(svc, app, await freshToken(svc, app), ORIGIN, 'sub.app.example.com'), 400, 'origin_not_allowed');
    });

    it('accepts a parent domain as RP ID and registers against it', async () => {
      const svc = service();
      const app = await svc.createApp();
      const reg = await registerPasskey(svc, app, { rpId: 'example.com' });
      expect(reg.begin.body.data.rp).toEqual({ id: 'example.com', name: 'example.com' });
      expect(reg.complete.status).toBe(200);
      expect((await credentialsOf(svc, app, reg.userId))[0]).toMatchObject({ rpid: 'example.com', origin: ORIGIN });
    });

    it('on an app with allowedOrigins, refuses other origins and accepts the listed one', async () => {
      const svc = service();
      const app = await svc.createApp({ allowedOrigins: ['https://app.example.com'] });
      expectProblem(await begin(svc, app, await freshToken(svc, app), 'https://evil.example.com', 'evil.example.com'), 400, 'origin_not_allowed');
      expectProblem(await begin(svc, app, await freshToken(svc, app), 'https://evil.example.com', 'example.com'), 400, 'origin_not_allowed');
      const reg = await registerPasskey(svc, app);
      expect(reg.complete.status).toBe(200);
    });
  });

  describe('register/complete: what the authenticator signed', () => {
    it('refuses a response to another challenge', async () => {
      const svc = service();
      const reg = await registerPasskey(svc, await svc.createApp(), { authenticator: { challenge: randomBytes(32).toString('base64url') } });
      expectRegistrationRefused(reg.complete, reg.begin, /challenge/);
    });

    it('refuses a response made for another origin', async () => {
      const svc = service();
      const reg = await registerPasskey(svc, await svc.createApp(), { authenticator: { origin: 'https://evil.example.com' } });
      expectRegistrationRefused(reg.complete, reg.begin, /origin/);
      expect(reg.complete.body.detail).not.toContain('evil');
    });

    it('refuses a response made for another RP ID', async () => {
      const svc = service();
      const reg = await registerPasskey(svc, await svc.createApp(), { authenticator: { rpId: 'evil.example.com' } });
      expectRegistrationRefused(reg.complete, reg.begin, /RP ID/);
    });

    it('refuses a public key that could never verify a signature, which attestation none would not catch', async () => {
      const svc = service();
      const app = await svc.createApp();
      const offCurve = await registerPasskey(svc, app, { authenticator: { alg: 'ES256', offCurvePublicKey: true } });
      expectRegistrationRefused(offCurve.complete, offCurve.begin, /public key is not a valid key/);
      const weakRsa = await registerPasskey(svc, app, { authenticator: { alg: 'RS256', rsaBits: 1024 } });
      expectRegistrationRefused(weakRsa.complete, weakRsa.begin, /public key is not a valid key/);
      expect(await svc.services.store.db.credential.count({ where: { tenant: app.appId } })).toBe(0);
    });

    it('refuses a sign-in (webauthn.get) client data', async () => {
      const svc = service();
      const reg = await registerPasskey(svc, await svc.createApp(), { authenticator: { type: 'webauthn.get' } });
      expectRegistrationRefused(reg.complete, reg.begin, /kind of ceremony/);
    });

    it('refuses a response without user verification when it was required, and accepts it when preferred', async () => {
      const svc = service();
      const app = await svc.createApp();
      const required = await registerPasskey(svc, app, { userVerification: 'required', authenticator: { userVerified: false } });
      expectRegistrationRefused(required.complete, required.begin, /[Uu]ser verification/);
      const preferred = await registerPasskey(svc, app, { userVerification: 'preferred', authenticator: { userVerified: false } });
      expect(preferred.complete.status).toBe(200);
    });

    it('refuses a response without user presence', async () => {
      const svc = service();
      const reg = await registerPasskey(svc, await svc.createApp(), { authenticator: { userPresent: false } });
      expectRegistrationRefused(reg.complete, reg.begin, /presence/);
    });

    it('accepts packed self attestation on an enterprise app that asked for direct attestation', async () => {
      const svc = service();
      const app = await svc.createApp({ plan: 'enterprise' });
      const reg = await registerPasskey(svc, app, { attestation: 'direct', authenticator: { fmt: 'packed' } });
      expect(reg.begin.body.data.attestation).toBe('direct');
      expect(reg.complete.status).toBe(200);
      expect(await credentialsOf(svc, app, reg.userId)).toEqual([expect.objectContaining({ attestationFmt: 'packed' })]);
    });

    it('accepts the body of the 1.1.x client, which sends `extensions` instead of `clientExtensionResults`', async () => {
      const svc = service();
      const app = await svc.createApp();
      const tokenBegin = await beginRegistration(svc, app, { userId: 'u1', username: 'alice' });
      const { response } = createCredential({ challenge: tokenBegin.body.data.challenge, rpId: RPID, origin: ORIGIN, userHandle: tokenBegin.body.data.user.id });
      const { clientExtensionResults, ...rest } = response;
      const res = await publicApi(svc, app).post('/register/complete', {
        session: tokenBegin.body.session,
        response: { ...rest, extensions: clientExtensionResults },
        Origin: ORIGIN,
        RPID,
      });
      expect(res.status).toBe(200);
      expect(res.body.token).toMatch(/^verify_/);
      expect(await credentialsOf(svc, app, 'u1')).toEqual([expect.objectContaining({ isDiscoverable: true })]);
    });
  });

  describe('register/complete: the session', () => {
    it('requires an Origin', async () => {
      const svc = service();
      const app = await svc.createApp();
      const reg = await registerPasskey(svc, app);
      const { Origin: _origin, ...withoutOrigin } = reg.completeBody;
      const tokenBegin = await beginRegistration(svc, app, { userId: 'u2', username: 'bob' });
      const res = await publicApi(svc, app).post('/register/complete', { ...withoutOrigin, session: tokenBegin.body.session });
      expectProblem(res, 400, 'missing_origin');
    });

    it('answers challenge_already_used when the same body is completed twice', async () => {
      const svc = service();
      const app = await svc.createApp();
      const reg = await registerPasskey(svc, app);
      expect(reg.complete.status).toBe(200);
      expectProblem(await publicApi(svc, app).post('/register/complete', reg.completeBody), 400, 'challenge_already_used');
      expect(await credentialsOf(svc, app, reg.userId)).toHaveLength(1);
    });

    it('consumes the challenge even when verification fails', async () => {
      const svc = service();
      const app = await svc.createApp();
      const failed = await registerPasskey(svc, app, { authenticator: { userPresent: false } });
      expectProblem(failed.complete, 400, 'fido2_invalid_registration');
      const retry = createCredential({ challenge: failed.begin.body.data.challenge, rpId: RPID, origin: ORIGIN, userHandle: failed.begin.body.data.user.id });
      const res = await publicApi(svc, app).post('/register/complete', { ...failed.completeBody, response: retry.response });
      expectProblem(res, 400, 'challenge_already_used');
    });

    it('writes nothing at register/begin: begun registrations leave no row, a completed one redeems its token and its session', async () => {
      const svc = service();
      const app = await svc.createApp();
      const rows = () => rowCountsOf(svc.services.store.db, app.appId);
      const begin = async (i: number) => expect((await beginRegistration(svc, app, { userId: `u${i}`, username: 'u' })).status).toBe(200);
      await begin(0); // the app's first token also creates its signing key
      const before = await rows();
      for (let i = 1; i < 10; i++) await begin(i);
      expect(await rows()).toEqual(before);
      expect((await registerPasskey(svc, app)).complete.status).toBe(200);
      expect((await rows()).redeemedToken).toBe(2);
    });

    it('refuses a sign-in session with invalid_session', async () => {
      const svc = service();
      const app = await svc.createApp();
      const signinBegin = await publicApi(svc, app).post('/signin/begin', { Origin: ORIGIN, RPID });
      const { response } = createCredential({ challenge: signinBegin.body.data.challenge, rpId: RPID, origin: ORIGIN, userHandle: 'dTE' });
      const res = await publicApi(svc, app).post('/register/complete', { session: signinBegin.body.session, response, Origin: ORIGIN, RPID });
      expectProblem(res, 400, 'invalid_session');
    });

    it('refuses a session of another app with invalid_token', async () => {
      const svc = service();
      const appA = await svc.createApp();
      const appB = await svc.createApp();
      const tokenBegin = await beginRegistration(svc, appA, { userId: 'u1', username: 'alice' });
      const { response } = createCredential({ challenge: tokenBegin.body.data.challenge, rpId: RPID, origin: ORIGIN, userHandle: tokenBegin.body.data.user.id });
      const res = await publicApi(svc, appB).post('/register/complete', { session: tokenBegin.body.session, response, Origin: ORIGIN, RPID });
      expectProblem(res, 400, 'invalid_token');
    });

    it('lets exactly one of two concurrent completions of one session succeed', async () => {
      const svc = service();
      const app = await svc.createApp();
      const tokenBegin = await beginRegistration(svc, app, { userId: 'u1', username: 'alice' });
      const { response } = createCredential({ challenge: tokenBegin.body.data.challenge, rpId: RPID, origin: ORIGIN, userHandle: tokenBegin.body.data.user.id });
      const body = { session: tokenBegin.body.session, response, Origin: ORIGIN, RPID };
      const results = await Promise.all([publicApi(svc, app).post('/register/complete', body), publicApi(svc, app).post('/register/complete', body)]);
      expect(results.map((r) => r.status).sort()).toEqual([200, 400]);
      expectProblem(results.find((r) => r.status === 400)!, 400, 'challenge_already_used');
      expect(await credentialsOf(svc, app, 'u1')).toHaveLength(1);
    });

    it('answers 409 alias_conflict when another user took a token alias meanwhile, and stores nothing', async () => {
      const svc = service();
      const app = await svc.createApp();
      const tokenBegin = await beginRegistration(svc, app, { userId: 'u1', username: 'alice', aliases: ['contested@example.com'] });
      expect((await privateApi(svc, app).post('/alias', { userId: 'u2', aliases: ['contested@example.com'] })).status).toBe(204);
      const { response } = createCredential({ challenge: tokenBegin.body.data.challenge, rpId: RPID, origin: ORIGIN, userHandle: tokenBegin.body.data.user.id });
      const res = await publicApi(svc, app).post('/register/complete', { session: tokenBegin.body.session, response, Origin: ORIGIN, RPID });
      expectProblem(res, 409, 'alias_conflict');
      expect(await credentialsOf(svc, app, 'u1')).toEqual([]);
      expect(await aliasesOf(svc, app, 'u2')).toHaveLength(1);
    });

    it.each([
      ['an attestation object that is not CBOR', { attestationObject: Buffer.from('not cbor at all').toString('base64url') }],
      ['client data that is not JSON', { clientDataJSON: Buffer.from('{"type":').toString('base64url') }],
    ])('refuses %s with 400', async (_case, replaced) => {
      const svc = service();
      const app = await svc.createApp();
      const tokenBegin = await beginRegistration(svc, app, { userId: 'u1', username: 'alice' });
      const { response } = createCredential({ challenge: tokenBegin.body.data.challenge, rpId: RPID, origin: ORIGIN, userHandle: tokenBegin.body.data.user.id });
      const inner = response.response as Record<string, unknown>;
      const broken = {
        ...response,
        response: { attestationObject: inner.AttestationObject, clientDataJSON: inner.clientDataJson, ...replaced },
      };
      const res = await publicApi(svc, app).post('/register/complete', { session: tokenBegin.body.session, response: broken, Origin: ORIGIN, RPID });
      expectProblem(res, 400, 'fido2_invalid_registration');
      expect(await credentialsOf(svc, app, 'u1')).toEqual([]);
    });

    it('refuses a credential id that is already registered, keeping exactly one credential', async () => {
      const svc = service();
      const app = await svc.createApp();
      const credentialId = randomBytes(16);
      const first = await registerPasskey(svc, app, { userId: 'u1', authenticator: { credentialId } });
      expect(first.complete.status).toBe(200);
      for (const userId of ['u1', 'u2']) {
        const again = await registerPasskey(svc, app, { userId, authenticator: { credentialId } });
        expectProblem(again.complete, 400, 'fido2_invalid_registration');
      }
      const credentials = [...(await credentialsOf(svc, app, 'u1')), ...(await credentialsOf(svc, app, 'u2'))];
      expect(credentials.map((c: { descriptor: { id: string } }) => c.descriptor.id)).toEqual([credentialId.toString('base64url')]);
    });
  });

  describe('register/complete: what is stored', () => {
    it('refuses a nickname over 64 characters without spending the ceremony, and stores one of 64', async () => {
      const svc = service();
      const app = await svc.createApp();
      const reg = await registerPasskey(svc, app, { nickname: 'n'.repeat(65) });
      expectValidationProblem(reg.complete, 'nickname');
      const res = await publicApi(svc, app).post('/register/complete', { ...reg.completeBody, nickname: 'n'.repeat(64) });
      expect(res.status).toBe(200);
      expect(await credentialsOf(svc, app, reg.userId)).toEqual([expect.objectContaining({ nickname: 'n'.repeat(64) })]);
    });

    it('replaces the user’s aliases with the token’s aliases, but only when the token has some', async () => {
      const svc = service();
      const app = await svc.createApp();
      const setAliases = await privateApi(svc, app).post('/alias', { userId: 'u1', aliases: ['old@example.com'], hashing: false });
      expect(setAliases.status).toBe(204);

      await registerPasskey(svc, app, { userId: 'u1', aliases: [] });
      expect((await aliasesOf(svc, app, 'u1')).map((a: { plaintext: string }) => a.plaintext)).toEqual(['old@example.com']);

      await registerPasskey(svc, app, { userId: 'u1' });
      expect((await aliasesOf(svc, app, 'u1')).map((a: { plaintext: string }) => a.plaintext)).toEqual(['old@example.com']);

      const reg = await registerPasskey(svc, app, { userId: 'u1', aliases: ['new@example.com', 'new2@example.com'], aliasHashing: false });
      expect(reg.complete.status).toBe(200);
      expect((await aliasesOf(svc, app, 'u1')).map((a: { plaintext: string }) => a.plaintext).sort()).toEqual(['new2@example.com', 'new@example.com']);
    });

    it('records the device from the User-Agent and the country from CF-IPCountry', async () => {
      const svc = service();
      const app = await svc.createApp();
      const reg = await registerPasskey(svc, app, { headers: { 'User-Agent': CHROME_ON_MAC, 'CF-IPCountry': 'SE' } });
      expect(reg.complete.status).toBe(200);
      const [credential] = await credentialsOf(svc, app, reg.userId);
      expect(credential.device).toContain('Chrome');
      expect(credential.device).toMatch(/Mac OS/);
      expect(credential.country).toBe('SE');
    });

    it('leaves the country empty without CF-IPCountry', async () => {
      const svc = service();
      const app = await svc.createApp();
      const reg = await registerPasskey(svc, app);
      expect((await credentialsOf(svc, app, reg.userId))[0].country).toBe('');
    });

    it.each([
      [false, false],
      [true, false],
      [true, true],
    ])('stores backup eligibility %s and backup state %s', async (backupEligible, backupState) => {
      const svc = service();
      const app = await svc.createApp();
      const reg = await registerPasskey(svc, app, { authenticator: { backupEligible, backupState } });
      expect(reg.complete.status).toBe(200);
      expect(await credentialsOf(svc, app, reg.userId)).toEqual([expect.objectContaining({ isBackupEligible: backupEligible, backupState })]);
    });

    it('refuses a backed-up credential that is not backup eligible', async () => {
      const svc = service();
      const reg = await registerPasskey(svc, await svc.createApp(), { authenticator: { backupEligible: false, backupState: true } });
      expectRegistrationRefused(reg.complete, reg.begin, /backup/);
    });

    it('stores the transports and offers them back in excludeCredentials, allowCredentials and the descriptor', async () => {
      const svc = service();
      const app = await svc.createApp();
      const reg = await registerPasskey(svc, app, { userId: 'u1', aliases: ['t@example.com'], authenticator: { transports: ['usb', 'nfc'] } });
      expect(reg.complete.status).toBe(200);
      const descriptor = { type: 'public-key', id: reg.credential.idB64, transports: ['usb', 'nfc'] };

      expect((await credentialsOf(svc, app, 'u1'))[0].descriptor).toEqual(descriptor);
      expect((await beginRegistration(svc, app, { userId: 'u1', username: 'alice' })).body.data.excludeCredentials).toEqual([descriptor]);
      const byUser = await publicApi(svc, app).post('/signin/begin', { userId: 'u1', Origin: ORIGIN, RPID });
      expect(byUser.body.data.allowCredentials).toEqual([descriptor]);
      const byAlias = await publicApi(svc, app).post('/signin/begin', { alias: 't@example.com', Origin: ORIGIN, RPID });
      expect(byAlias.body.data.allowCredentials).toEqual([descriptor]);
    });

    it('returns a passkey_register verify token for the new credential', async () => {
      const svc = service();
      const app = await svc.createApp();
      const reg = await registerPasskey(svc, app, { nickname: 'laptop' });
      const verified = await privateApi(svc, app).post('/signin/verify', { token: reg.complete.body.token });
      expect(verified.status).toBe(200);
      expect(verified.body).toMatchObject({
        success: true,
        type: 'passkey_register',
        userId: reg.userId,
        nickname: 'laptop',
        credentialId: Buffer.from(reg.credential.id).toString('base64'),
        origin: ORIGIN,
        rpid: RPID,
      });
    });
  });
});
