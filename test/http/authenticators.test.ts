/**
 * Authenticator allow and block lists (`/authenticators/*`) and what registration makes of them
 * and of the FIDO metadata. The metadata is a BLOB the suite signs under its own root; the
 * software authenticator attests (`packed`, with an x5c chain) under a vendor root the BLOB lists,
 * or under a rogue root it does not. A refusal leaves no passkey behind.
 */
import { registerPasskey, type RegisterOptions } from '../support/ceremonies';
import { expectProblem } from '../support/http';
import { KEYS, claimed, metadataEnv, packedAttestation, testBlob, writeBlob } from '../support/metadata';
import { credentialsOf, privateApi, setFeatures } from '../support/privateApi';
import { aaguidBytes } from '../support/softwareAuthenticator';
import { createTestPki, type TestPki } from '../support/testPki';
import { providers, startTestService, warnIfPostgresSkipped, type TestApp, type TestService } from '../support/testService';

warnIfPostgresSkipped();

describe.each(providers())('authenticator allow and block lists on %s', (provider) => {
  let pki: TestPki;
  let svc: TestService;
  beforeAll(async () => {
    pki = createTestPki();
    svc = await startTestService(provider, metadataEnv(pki, writeBlob(pki, `lists-${provider}.jwt`, testBlob(pki))), { metadataRefreshIntervalMs: 0 });
  });
  afterAll(async () => {
    await svc?.close();
    pki.remove();
  });

  const list = async (app: TestApp, isAllowed: boolean) => {
    const res = await privateApi(svc, app).get(`/authenticators/list?isAllowed=${isAllowed}`);
    expect(res.status).toBe(200);
    return (res.body as { aaGuid: string }[]).map((entry) => entry.aaGuid);
  };
  const add = (app: TestApp, aaGuids: string[], isAllowed: boolean) => privateApi(svc, app).post('/authenticators/add').send({ aaGuids, isAllowed });
  const remove = (app: TestApp, aaGuids: string[]) => privateApi(svc, app).post('/authenticators/remove').send({ aaGuids });
  const passkeyCount = (app: TestApp) => svc.services.store.db.credential.count({ where: { tenant: app.appId } });

  /** A registration of `authenticator`, asking for `attestation`; the complete answer and whether a passkey was kept. */
  async function register(app: TestApp, attestation: 'none' | 'direct' | 'indirect', authenticator: RegisterOptions['authenticator']) {
    const before = await passkeyCount(app);
    const { complete, userId } = await registerPasskey(svc, app, { attestation, authenticator });
    const kept = (await passkeyCount(app)) - before;
    expect(kept).toBe(complete.status === 200 ? 1 : 0);
    if (complete.status !== 200) expect(await credentialsOf(svc, app, userId)).toEqual([]);
    return complete;
  }

  describe('the plan gate', () => {
    it('answers 403 attestation_not_supported_on_plan to apps without attestation, after validation', async () => {
      const trial = await svc.createApp();
      for (const res of [await privateApi(svc, trial).get('/authenticators/list?isAllowed=true'), await add(trial, [KEYS.trusted], true), await remove(trial, [KEYS.trusted])]) {
        expectProblem(res, 403, 'attestation_not_supported_on_plan');
        expect(res.body.detail).toContain('enterprise plan');
      }
      expectProblem(await add(trial, ['not-a-guid'], true), 400, 'validation_failed');
      expectProblem(await privateApi(svc, trial).get('/authenticators/list'), 400, 'validation_failed');
      expectProblem(await svc.http.get('/authenticators/list?isAllowed=true'), 401, 'ApiSecret');
    });

    it('opens the lists to the allowAttestation feature as to the enterprise plan', async () => {
      const app = await svc.createApp();
      await setFeatures(svc, app, { allowAttestation: true });
      expect(await list(app, true)).toEqual([]);
    });
  });

  describe('managing the lists', () => {
    it('adds AAGUIDs the metadata knows to either list, moves them between lists, and removes them', async () => {
      const app = await svc.createApp({ plan: 'enterprise' });
      expect((await add(app, [KEYS.trusted, KEYS.other.toUpperCase(), KEYS.trusted], true)).status).toBe(204);
      expect((await privateApi(svc, app).get('/api/authenticators/list?isAllowed=true')).body).toEqual([
        { aaGuid: expect.any(String), createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) },
        { aaGuid: expect.any(String), createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) },
      ]);
      expect((await list(app, true)).sort()).toEqual([KEYS.other, KEYS.trusted].sort());
      expect(await list(app, false)).toEqual([]);

      expect((await add(app, [KEYS.other], false)).status).toBe(204);
      expect(await list(app, true)).toEqual([KEYS.trusted]);
      expect(await list(app, false)).toEqual([KEYS.other]);

      expect((await remove(app, [KEYS.other, KEYS.unknown])).status).toBe(204);
      expect(await list(app, false)).toEqual([]);
      expect(await list(app, true)).toEqual([KEYS.trusted]);
    });

    it('refuses, all or nothing, a request naming an AAGUID the metadata does not know, and names it', async () => {
      const app = await svc.createApp({ plan: 'enterprise' });
      const res = await add(app, [KEYS.trusted, KEYS.unknown], true);
      expectProblem(res, 400, 'unknown_authenticator');
      expect(res.body).toMatchObject({ title: 'One or more authenticators do not exist in the FIDO2 MDS.', detail: `Not in the FIDO metadata: ${KEYS.unknown}.`, aaGuids: [KEYS.unknown] });
      expect(await list(app, true)).toEqual([]);
      const tooMany = await add(app, Array.from({ length: 501 }, (_, i) => `${String(i).padStart(8, '0')}-0000-4000-8000-000000000000`), true);
      expectProblem(tooMany, 400, 'validation_failed');
      expectProblem(await add(app, [], true), 400, 'validation_failed');
    });

    it("records every change in the app's event log", async () => {
      const app = await svc.createApp({ plan: 'enterprise' });
      await setFeatures(svc, app, { eventLoggingIsEnabled: true });
      await add(app, [KEYS.trusted], true);
      await add(app, [KEYS.other], false);
      await remove(app, [KEYS.trusted, KEYS.other]);
      const events = (await privateApi(svc, app).get('/events?pageNumber=1')).body.events as { eventType: string; subject: string; performedBy: string }[];
      expect(events.filter((e) => e.eventType.startsWith('ApiAuthenticators')).map((e) => [e.eventType, e.subject, e.performedBy]).sort()).toEqual(
        [
          ['ApiAuthenticatorsAllowlisted', KEYS.trusted, 'Unknown User'],
          ['ApiAuthenticatorsBlacklisted', KEYS.other, 'Unknown User'],
          ['ApiAuthenticatorsDelisted', KEYS.other, 'Unknown User'],
          ['ApiAuthenticatorsDelisted', KEYS.trusted, 'Unknown User'],
        ].sort(),
      );
    });
  });

  describe('registration', () => {
    it('keeps an attested passkey whose certificate chains to the root the metadata lists, and names its authenticator', async () => {
      const app = await svc.createApp({ plan: 'enterprise' });
      const { complete, userId } = await registerPasskey(svc, app, { attestation: 'direct', authenticator: packedAttestation(pki, KEYS.trusted) });
      expect(complete.status).toBe(200);
      const [credential] = await credentialsOf(svc, app, userId);
      expect(credential).toMatchObject({ aaGuid: KEYS.trusted, attestationFmt: 'packed', authenticatorName: 'Test Security Key' });
      const unnamed = await registerPasskey(svc, app, { authenticator: claimed(KEYS.unknown) });
      expect((await credentialsOf(svc, app, unnamed.userId))[0]).toMatchObject({ aaGuid: KEYS.unknown, authenticatorName: null });
    });

    it('refuses an attestation whose chain does not reach the roots the metadata lists for its AAGUID', async () => {
      const app = await svc.createApp({ plan: 'enterprise' });
      const res = await register(app, 'direct', packedAttestation(pki, KEYS.trusted, pki.rogueAttestation));
      expectProblem(res, 400, 'fido2_invalid_registration');
      expect(res.body.detail).toContain('not signed under a root the FIDO metadata lists');
      // An AAGUID the metadata does not describe has nothing to check it against, as before.
      expect((await register(app, 'indirect', packedAttestation(pki, KEYS.unknown, pki.rogueAttestation))).status).toBe(200);
    });

    it('refuses an authenticator the metadata reports compromised or revoked, on every plan', async () => {
      for (const plan of ['trial', 'enterprise'] as const) {
        const app = await svc.createApp({ plan });
        for (const [key, status] of [
          [KEYS.compromised, 'ATTESTATION_KEY_COMPROMISE'],
          [KEYS.revoked, 'REVOKED'],
        ]) {
          const res = await register(app, 'none', claimed(key));
          expectProblem(res, 400, 'authenticator_not_allowed');
          expect(res.body.detail).toBe(`The FIDO metadata reports this authenticator as ${status}.`);
        }
      }
    });

    it('refuses a blocklisted authenticator, attested or not', async () => {
      const app = await svc.createApp({ plan: 'enterprise' });
      await add(app, [KEYS.trusted], false);
      for (const res of [await register(app, 'none', claimed(KEYS.trusted)), await register(app, 'direct', packedAttestation(pki, KEYS.trusted))]) {
        expectProblem(res, 400, 'authenticator_not_allowed');
        expect(res.body.detail).toBe('The authenticator is on the blocklist and is not allowed to be used for registration.');
      }
      expect((await register(app, 'none', claimed(KEYS.other))).status).toBe(200);
    });

    it('with an allowlist, keeps only listed authenticators that prove it with an attestation the metadata vouches for', async () => {
      const app = await svc.createApp({ plan: 'enterprise' });
      await add(app, [KEYS.trusted], true);

      // No attestation asked for: the AAGUID is only claimed, listed or not.
      for (const key of [KEYS.trusted, KEYS.other]) expectProblem(await register(app, 'none', claimed(key)), 400, 'attestation_required');
      // Asked for, but the authenticator gave none.
      expectProblem(await register(app, 'direct', claimed(KEYS.trusted)), 400, 'attestation_required');

      const unlisted = await register(app, 'direct', packedAttestation(pki, KEYS.other));
      expectProblem(unlisted, 400, 'authenticator_not_allowed');
      expect(unlisted.body.detail).toContain('not found on the allowlist');

      // Listed, but self-attested: nothing the metadata can vouch for.
      const selfAttested = await register(app, 'direct', { fmt: 'packed', aaguid: aaguidBytes(KEYS.trusted) });
      expectProblem(selfAttested, 400, 'authenticator_not_allowed');
      expect(selfAttested.body.detail).toContain('carries no certificate the FIDO metadata vouches for');

      expect((await register(app, 'direct', packedAttestation(pki, KEYS.trusted))).status).toBe(200);
      expect((await register(app, 'indirect', packedAttestation(pki, KEYS.trusted))).status).toBe(200);
    });

    it('stops applying the lists when the app loses attestation, and applies them again when it gets it back', async () => {
      const app = await svc.createApp({ plan: 'enterprise' });
      await add(app, [KEYS.other], false);
      // An enterprise app is created with allowAttestation; both must go.
      await setFeatures(svc, app, { plan: 'trial', allowAttestation: false });
      expect((await register(app, 'none', claimed(KEYS.other))).status).toBe(200);
      await setFeatures(svc, app, { allowAttestation: true });
      expectProblem(await register(app, 'none', claimed(KEYS.other)), 400, 'authenticator_not_allowed');
    });
  });

  describe('tenant isolation', () => {
    it("keeps each app's lists its own: listing, adding, removing and registration", async () => {
      const [a, b] = [await svc.createApp({ plan: 'enterprise' }), await svc.createApp({ plan: 'enterprise' })];
      await add(a, [KEYS.trusted], false);
      await add(a, [KEYS.other], true);
      expect(await list(b, false)).toEqual([]);
      expect(await list(b, true)).toEqual([]);

      // B has no lists: A's blocked and unlisted authenticators register there.
      expect((await register(b, 'none', claimed(KEYS.trusted))).status).toBe(200);
      expectProblem(await register(a, 'none', claimed(KEYS.trusted)), 400, 'authenticator_not_allowed');

      // B's changes touch only B.
      await add(b, [KEYS.trusted], true);
      await remove(b, [KEYS.trusted, KEYS.other]);
      expect(await list(a, false)).toEqual([KEYS.trusted]);
      expect(await list(a, true)).toEqual([KEYS.other]);
      expect(await list(b, true)).toEqual([]);
      expect(await svc.services.store.db.authenticator.count({ where: { tenant: b.appId } })).toBe(0);
    });
  });
});
