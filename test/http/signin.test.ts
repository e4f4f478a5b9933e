import { rowCountsOf } from '../support/appData';
import { ORIGIN, RPID, registerPasskey, signIn, verifyToken } from '../support/ceremonies';
import { expectProblem, expectValidationProblem, useTestService } from '../support/problems';
import { CHROME_ON_MAC, FIREFOX_ON_WINDOWS, beginRegistration, credentialsOf, privateApi, publicApi } from '../support/privateApi';
import { createCredential, getAssertion } from '../support/softwareAuthenticator';
import { providers, type TestApp, type TestService } from '../support/testService';

const beginSignin = (svc: TestService, app: TestApp, body: Record<string, unknown> = {}) =>
  publicApi(svc, app).post('/signin/begin', { Origin: ORIGIN, RPID, ...body });

/** The begin answer without its random parts, to compare shapes. */
const shapeOf = (data: Record<string, unknown>) => ({ ...data, challenge: typeof data.challenge });

describe.each(providers())('sign-in ceremony on %s', (provider) => {
  const service = useTestService(provider);

  describe('signin/begin', () => {
    it('offers the passkeys of a user named by userId, most recent first', async () => {
      const svc = service();
      const app = await svc.createApp();
      const first = await registerPasskey(svc, app, { userId: 'u1' });
      const second = await registerPasskey(svc, app, { userId: 'u1' });
      expect(await signIn(svc, app, first.credential, { userId: 'u1' })).toMatchObject({ complete: { status: 200 } });

      const begin = await beginSignin(svc, app, { userId: 'u1' });
      expect(begin.status).toBe(200);
      expect(begin.body.session).toMatch(/^session_/);
      expect(begin.body.data).toEqual({
        challenge: expect.stringMatching(/^[A-Za-z0-9_-]{22,}$/),
        timeout: 60000,
        rpId: RPID,
        allowCredentials: [
          { type: 'public-key', id: first.credential.idB64 },
          { type: 'public-key', id: second.credential.idB64 },
        ],
        userVerification: 'preferred',
      });
    });

    it('offers the passkeys of the user owning an alias', async () => {
      const svc = service();
      const app = await svc.createApp();
      const reg = await registerPasskey(svc, app, { aliases: ['alice@example.com'] });
      const begin = await beginSignin(svc, app, { alias: 'alice@example.com' });
      expect(begin.body.data.allowCredentials).toEqual([{ type: 'public-key', id: reg.credential.idB64 }]);
      const done = await signIn(svc, app, reg.credential, { alias: 'alice@example.com' });
      expect(done.complete.status).toBe(200);
    });

    it('never reveals, in the readable session token, which user owns an alias', async () => {
      const svc = service();
      const app = await svc.createApp();
      await registerPasskey(svc, app, { userId: 'carol-internal-id', aliases: ['carol@example.com'] });
      const known = await beginSignin(svc, app, { alias: 'carol@example.com' });
      const unknown = await beginSignin(svc, app, { alias: 'nobody@example.com' });
      const payloadOf = (session: string) => Buffer.from(session.slice('session_'.length).split('.')[0], 'base64url').toString('utf8');
      expect(payloadOf(known.body.session)).not.toContain('carol-internal-id');
      expect(Object.keys(JSON.parse(payloadOf(known.body.session))).sort()).toEqual(Object.keys(JSON.parse(payloadOf(unknown.body.session))).sort());
    });

    it('answers an unknown alias or userId with a decoy allow list: shaped like a real one, the same on every call', async () => {
      const svc = service();
      const app = await svc.createApp();
      const known = await registerPasskey(svc, app, { userId: 'known', aliases: ['known@example.com'] });
      const real = await beginSignin(svc, app, { alias: 'known@example.com' });
      const unknownAlias = await beginSignin(svc, app, { alias: 'nobody@example.com' });
      const unknownUser = await beginSignin(svc, app, { userId: 'nobody' });
      // The same fields, and descriptors of the same fields.
      const structure = (data: Record<string, unknown>) => ({ ...shapeOf(data), allowCredentials: (data.allowCredentials as object[]).map((d) => Object.keys(d)).slice(0, 1) });
      for (const res of [real, unknownAlias, unknownUser]) {
        expect(res.status).toBe(200);
        expect(Object.keys(res.body)).toEqual(['session', 'data']);
        expect(structure(res.body.data)).toEqual(structure(real.body.data));
      }
      expect(real.body.data.allowCredentials).toEqual([{ type: 'public-key', id: known.credential.idB64 }]);
      for (const [res, again] of [
        [unknownAlias, await beginSignin(svc, app, { alias: 'nobody@example.com' })],
        [unknownUser, await beginSignin(svc, app, { userId: 'nobody' })],
      ]) {
        expect(res.body.data.allowCredentials.length).toBeGreaterThanOrEqual(1);
        expect(res.body.data.allowCredentials).toEqual(again.body.data.allowCredentials);
        expect(res.body.data.allowCredentials.map((d: { id: string }) => d.id)).not.toContain(known.credential.idB64);
      }
    });

    it('signs in with a discoverable passkey and reports its owner', async () => {
      const svc = service();
      const app = await svc.createApp();
      const reg = await registerPasskey(svc, app);
      const done = await signIn(svc, app, reg.credential);
      expect(done.begin.body.data.allowCredentials).toEqual([]);
      expect(done.complete.status).toBe(200);
      expect((await verifyToken(svc, app, done.complete.body.token)).body).toMatchObject({ userId: reg.userId, type: 'passkey_signin' });
    });

    it('requires user verification for the step-up purpose and reports the purpose', async () => {
      const svc = service();
      const app = await svc.createApp();
      const reg = await registerPasskey(svc, app);
      const done = await signIn(svc, app, reg.credential, { userId: reg.userId, purpose: 'step-up' });
      expect(done.begin.body.data.userVerification).toBe('required');
      expect(done.complete.status).toBe(200);
      expect((await verifyToken(svc, app, done.complete.body.token)).body.purpose).toBe('step-up');
    });

    it('refuses a purpose the app has no configuration for with a 400 problem', async () => {
      const svc = service();
      const app = await svc.createApp();
      const res = await publicApi(svc, app).post('/signin/begin', { purpose: 'make-coffee', RPID, Origin: ORIGIN });
      expectProblem(res, 400, 'unknown_purpose');
      expect(res.body.detail).toContain('make-coffee');
    });

    it('requires an Origin', async () => {
      const svc = service();
      const app = await svc.createApp();
      expectProblem(await publicApi(svc, app).post('/signin/begin', { RPID }), 400, 'missing_origin');
    });

    it.each([
      ['purpose', 'p'.repeat(256)],
      ['Origin', `https://${'a'.repeat(2040)}.example.com`],
      ['RPID', `${'a'.repeat(250)}.com`],
    ])('rejects a %s longer than its limit, so a session token stays small', async (field, value) => {
      const svc = service();
      const app = await svc.createApp();
      const res = await publicApi(svc, app).post('/signin/begin', { Origin: ORIGIN, RPID, [field]: value });
      expectValidationProblem(res, field.toLowerCase());
    });

    it.each(['userId', 'alias', 'purpose'])('rejects a NUL character in %s on every store', async (field) => {
      const svc = service();
      const app = await svc.createApp();
      expectValidationProblem(await beginSignin(svc, app, { [field]: 'x\u0000' }), field);
    });
  });

  describe('signin/complete: the assertion', () => {
    it('answers unknown_credential with the credentialId that was sent', async () => {
      const svc = service();
      const app = await svc.createApp();
      const stranger = createCredential({ challenge: 'x', rpId: RPID, origin: ORIGIN, userHandle: 'eA' }).credential;
      const done = await signIn(svc, app, stranger);
      expectProblem(done.complete, 400, 'unknown_credential');
      expect(done.complete.body.credentialId).toBe((done.completeBody.response as { id: string }).id);
    });

    it('refuses a bad signature', async () => {
      const svc = service();
      const app = await svc.createApp();
      const reg = await registerPasskey(svc, app);
      expectProblem((await signIn(svc, app, reg.credential, { assertion: { tamperSignature: true } })).complete, 400, 'signin_complete_error');
    });

    it.each([
      ['origin', { origin: 'https://evil.example.com' }],
      ['RP ID', { rpId: 'evil.example.com' }],
      ['ceremony type', { type: 'webauthn.create' }],
    ])('refuses an assertion made for another %s', async (_what, assertion) => {
      const svc = service();
      const app = await svc.createApp();
      const reg = await registerPasskey(svc, app);
      const done = await signIn(svc, app, reg.credential, { assertion });
      expectProblem(done.complete, 400, 'signin_complete_error');
      expect(done.complete.body.detail).not.toMatch(/Unexpected|expected|evil/);
    });

    it('refuses an assertion without user verification when the purpose requires it', async () => {
      const svc = service();
      const app = await svc.createApp();
      const reg = await registerPasskey(svc, app);
      const done = await signIn(svc, app, reg.credential, { purpose: 'step-up', assertion: { userVerified: false } });
      expectProblem(done.complete, 400, 'signin_complete_error');
      expect(done.complete.body.detail).toMatch(/[Uu]ser verification/);
      const preferred = await signIn(svc, app, reg.credential, { assertion: { userVerified: false } });
      expect(preferred.complete.status).toBe(200);
    });

    it('refuses an assertion without user presence', async () => {
      const svc = service();
      const app = await svc.createApp();
      const reg = await registerPasskey(svc, app);
      expectProblem((await signIn(svc, app, reg.credential, { assertion: { userPresent: false } })).complete, 400, 'signin_complete_error');
    });

    it('refuses a counter that did not increase (a cloned authenticator) and accepts the next higher one', async () => {
      const svc = service();
      const app = await svc.createApp();
      const reg = await registerPasskey(svc, app, { authenticator: { counter: 5 } });
      expect((await signIn(svc, app, reg.credential, { assertion: { counter: 6 } })).complete.status).toBe(200);
      const clone = (await signIn(svc, app, reg.credential, { assertion: { counter: 6 } })).complete;
      expectProblem(clone, 400, 'signin_complete_error');
      expect(clone.body.detail).toMatch(/counter/);
      expectProblem((await signIn(svc, app, reg.credential, { assertion: { counter: 3 } })).complete, 400, 'signin_complete_error');
      expect((await signIn(svc, app, reg.credential, { assertion: { counter: 7 } })).complete.status).toBe(200);
      expect((await credentialsOf(svc, app, reg.userId))[0].signatureCounter).toBe(7);
    });

    it('refuses a counter that falls back to 0 after it had started counting', async () => {
      const svc = service();
      const app = await svc.createApp();
      const reg = await registerPasskey(svc, app, { authenticator: { counter: 5 } });
      expectProblem((await signIn(svc, app, reg.credential, { assertion: { counter: 0 } })).complete, 400, 'signin_complete_error');
    });

    it('accepts an authenticator whose counter is always 0', async () => {
      const svc = service();
      const app = await svc.createApp();
      const reg = await registerPasskey(svc, app, { authenticator: { counter: 0 } });
      expect((await signIn(svc, app, reg.credential, { assertion: { counter: 0 } })).complete.status).toBe(200);
      expect((await signIn(svc, app, reg.credential, { assertion: { counter: 0 } })).complete.status).toBe(200);
    });

    it('refuses an assertion whose backup eligibility differs from registration', async () => {
      const svc = service();
      const app = await svc.createApp();
      const reg = await registerPasskey(svc, app, { authenticator: { backupEligible: false } });
      const done = await signIn(svc, app, reg.credential, { assertion: { backupEligible: true } });
      expectProblem(done.complete, 400, 'signin_complete_error');
      expect(done.complete.body.detail).toMatch(/backup/);
    });

    it('refreshes the backup state at sign-in', async () => {
      const svc = service();
      const app = await svc.createApp();
      const reg = await registerPasskey(svc, app, { authenticator: { backupEligible: true, backupState: false } });
      expect((await credentialsOf(svc, app, reg.userId))[0].backupState).toBe(false);
      const done = await signIn(svc, app, reg.credential, { assertion: { backupState: true } });
      expect(done.complete.status).toBe(200);
      expect((await credentialsOf(svc, app, reg.userId))[0]).toMatchObject({ backupState: true, isBackupEligible: true });
      expect((await verifyToken(svc, app, done.complete.body.token)).body).toMatchObject({ backupEligible: true, backupState: true });
    });

    it('checks a userHandle when one is sent', async () => {
      const svc = service();
      const app = await svc.createApp();
      const reg = await registerPasskey(svc, app, { userId: 'u1' });
      const other = Buffer.from('u2').toString('base64url');
      expectProblem((await signIn(svc, app, reg.credential, { assertion: { userHandle: other } })).complete, 400, 'signin_complete_error');
      const own = Buffer.from('u1').toString('base64url');
      expect((await signIn(svc, app, reg.credential, { assertion: { userHandle: own } })).complete.status).toBe(200);
    });
  });

  describe('signin/complete: whose passkey', () => {
    it('refuses user B’s passkey on a sign-in begun for user A', async () => {
      const svc = service();
      const app = await svc.createApp();
      await registerPasskey(svc, app, { userId: 'alice', aliases: ['alice@example.com'] });
      const bob = await registerPasskey(svc, app, { userId: 'bob' });
      expectProblem((await signIn(svc, app, bob.credential, { userId: 'alice' })).complete, 400, 'signin_complete_error');
      expectProblem((await signIn(svc, app, bob.credential, { alias: 'alice@example.com' })).complete, 400, 'signin_complete_error');
    });

    it('refuses any passkey when the named user has none or does not exist', async () => {
      const svc = service();
      const app = await svc.createApp();
      const bob = await registerPasskey(svc, app, { userId: 'bob' });
      expect((await privateApi(svc, app).post('/alias', { userId: 'carol', aliases: ['carol@example.com'] })).status).toBe(204);
      for (const named of [{ alias: 'carol@example.com' }, { userId: 'carol' }, { userId: 'ghost' }, { alias: 'ghost@example.com' }]) {
        const done = await signIn(svc, app, bob.credential, named);
        // A decoy list: never bob's passkey.
        expect(done.begin.body.data.allowCredentials.length).toBeGreaterThanOrEqual(1);
        expect(done.begin.body.data.allowCredentials.map((d: { id: string }) => d.id)).not.toContain(bob.credential.idB64);
        expectProblem(done.complete, 400, 'signin_complete_error');
      }
    });

    it('updates lastUsedAt, device and country at sign-in', async () => {
      const svc = service();
      const app = await svc.createApp();
      const reg = await registerPasskey(svc, app, { headers: { 'User-Agent': CHROME_ON_MAC, 'CF-IPCountry': 'SE' } });
      const [before] = await credentialsOf(svc, app, reg.userId);
      const startedAt = Date.now();
      const done = await signIn(svc, app, reg.credential, { headers: { 'User-Agent': FIREFOX_ON_WINDOWS, 'CF-IPCountry': 'DE' } });
      expect(done.complete.status).toBe(200);
      const [after] = await credentialsOf(svc, app, reg.userId);
      expect(after.device).toContain('Firefox');
      expect(after.device).toContain('Windows');
      expect(after.country).toBe('DE');
      expect(after.createdAt).toBe(before.createdAt);
      expect(Date.parse(after.lastUsedAt)).toBeGreaterThanOrEqual(startedAt);
      const verified = (await verifyToken(svc, app, done.complete.body.token)).body;
      expect(verified).toMatchObject({ device: after.device, country: 'DE' });
    });
  });

  describe('signin/complete: the session', () => {
    it('answers challenge_already_used when the same body is completed twice', async () => {
      const svc = service();
      const app = await svc.createApp();
      const reg = await registerPasskey(svc, app);
      const done = await signIn(svc, app, reg.credential);
      expect(done.complete.status).toBe(200);
      expectProblem(await publicApi(svc, app).post('/signin/complete', done.completeBody), 400, 'challenge_already_used');
    });

    it('consumes the challenge even when the first attempt fails', async () => {
      const svc = service();
      const app = await svc.createApp();
      const reg = await registerPasskey(svc, app);
      const failed = await signIn(svc, app, reg.credential, { assertion: { tamperSignature: true } });
      expectProblem(failed.complete, 400, 'signin_complete_error');
      const honest = getAssertion(reg.credential, { challenge: failed.begin.body.data.challenge, rpId: RPID, origin: ORIGIN });
      const retry = await publicApi(svc, app).post('/signin/complete', { ...failed.completeBody, response: honest });
      expectProblem(retry, 400, 'challenge_already_used');
    });

    it('lets exactly one of two concurrent completions of one session succeed', async () => {
      const svc = service();
      const app = await svc.createApp();
      const reg = await registerPasskey(svc, app);
      const begin = await beginSignin(svc, app);
      const body = { session: begin.body.session, response: getAssertion(reg.credential, { challenge: begin.body.data.challenge, rpId: RPID, origin: ORIGIN }), Origin: ORIGIN, RPID };
      const results = await Promise.all([publicApi(svc, app).post('/signin/complete', body), publicApi(svc, app).post('/signin/complete', body)]);
      expect(results.map((r) => r.status).sort()).toEqual([200, 400]);
      expectProblem(results.find((r) => r.status === 400)!, 400, 'challenge_already_used');
    });

    it('writes nothing to the database at signin/begin, so a flood of begins costs the app no rows', async () => {
      const svc = service();
      const app = await svc.createApp();
      const reg = await registerPasskey(svc, app, { aliases: ['flood@example.com'] });
      const rows = () => rowCountsOf(svc.services.store.db, app.appId);
      const before = await rows();
      for (const body of [{}, { userId: reg.userId }, { alias: 'flood@example.com' }, { alias: 'nobody@example.com' }]) {
        for (let i = 0; i < 10; i++) expect((await beginSignin(svc, app, body)).status).toBe(200);
      }
      expect(await rows()).toEqual(before);
      // Completing one redeems its session: one row, kept until the session would have expired.
      expect((await signIn(svc, app, reg.credential)).complete.status).toBe(200);
      expect((await rows()).redeemedToken).toBe(before.redeemedToken + 1);
    });

    it('refuses a registration session with invalid_session', async () => {
      const svc = service();
      const app = await svc.createApp();
      const reg = await registerPasskey(svc, app);
      const registration = await beginRegistration(svc, app, { userId: reg.userId, username: 'u' });
      const response = getAssertion(reg.credential, { challenge: registration.body.data.challenge, rpId: RPID, origin: ORIGIN });
      const res = await publicApi(svc, app).post('/signin/complete', { session: registration.body.session, response, Origin: ORIGIN, RPID });
      expectProblem(res, 400, 'invalid_session');
    });

    it('refuses a session of another app with invalid_token', async () => {
      const svc = service();
      const appA = await svc.createApp();
      const appB = await svc.createApp();
      const reg = await registerPasskey(svc, appA);
      const begin = await beginSignin(svc, appA);
      const response = getAssertion(reg.credential, { challenge: begin.body.data.challenge, rpId: RPID, origin: ORIGIN });
      const res = await publicApi(svc, appB).post('/signin/complete', { session: begin.body.session, response, Origin: ORIGIN, RPID });
      expectProblem(res, 400, 'invalid_token');
    });

    it('refuses a verify token of another app with invalid_token', async () => {
      const svc = service();
      const appA = await svc.createApp();
      const appB = await svc.createApp();
      const reg = await registerPasskey(svc, appA);
      const done = await signIn(svc, appA, reg.credential);
      expectProblem(await verifyToken(svc, appB, done.complete.body.token), 400, 'invalid_token');
      expect((await verifyToken(svc, appA, done.complete.body.token)).status).toBe(200);
    });

    it.each([
      ['missing', undefined, 'missing_token'],
      ['malformed', 'session_%%%', 'invalid_token_format'],
      ['of the wrong kind', 'register_abc.1.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', 'invalid_token'],
    ])('refuses a session token that is %s', async (_case, session, errorCode) => {
      const svc = service();
      const app = await svc.createApp();
      const reg = await registerPasskey(svc, app);
      const done = await signIn(svc, app, reg.credential);
      expectProblem(await publicApi(svc, app).post('/signin/complete', { ...done.completeBody, session }), 400, errorCode);
    });
  });
});
