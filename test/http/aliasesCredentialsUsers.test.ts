import { createHash, randomBytes } from 'node:crypto';
import { ORIGIN, RPID, registerPasskey, signIn } from '../support/ceremonies';
import { expectProblem, expectValidationProblem, useTestService } from '../support/problems';
import { CHROME_ON_MAC, aliasesOf, credentialsOf, privateApi, publicApi, setFeatures, toStandardBase64 } from '../support/privateApi';
import { providers, type TestApp, type TestService } from '../support/testService';

const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/** The stored alias key the reference uses: base64(SHA-256(UTF-8(appId + alias))). */
const aliasHash = (appId: string, alias: string) => createHash('sha256').update(appId + alias, 'utf8').digest('base64');

const setAliases = (svc: TestService, app: TestApp, body: unknown) => privateApi(svc, app).post('/alias', body);

const plaintextsOf = async (svc: TestService, app: TestApp, userId: string) =>
  ((await aliasesOf(svc, app, userId)) as { plaintext: string | null }[]).map((a) => a.plaintext).sort();

const allowedFor = async (svc: TestService, app: TestApp, alias: string) =>
  (await publicApi(svc, app).post('/signin/begin', { alias, Origin: ORIGIN, RPID })).body.data.allowCredentials as { id: string }[];

/** Whether a sign-in by `alias` offers the passkey (a name without passkeys gets a decoy list, never an empty one). */
const offers = async (svc: TestService, app: TestApp, alias: string, credentialId: string) => (await allowedFor(svc, app, alias)).some((d) => d.id === credentialId);

describe.each(providers())('aliases, credentials and users on %s', (provider) => {
  const service = useTestService(provider);

  describe('POST /alias and GET /alias/list', () => {
    it('stores hashed aliases by default and never shows their plaintext', async () => {
      const svc = service();
      const app = await svc.createApp();
      expect((await setAliases(svc, app, { userId: 'u1', aliases: ['alice@example.com', 'Alice'] })).status).toBe(204);
      const res = await privateApi(svc, app).get('/alias/list?userId=u1');
      expect(res.status).toBe(200);
      expect(res.body).toHaveLength(2);
      expect(res.body).toEqual(
        expect.arrayContaining([
          { userId: 'u1', alias: aliasHash(app.appId, 'alice@example.com'), plaintext: null },
          { userId: 'u1', alias: aliasHash(app.appId, 'Alice'), plaintext: null },
        ]),
      );
      expect(JSON.stringify(res.body)).not.toContain('alice@example.com');
    });

    it('shows the plaintext when hashing is false', async () => {
      const svc = service();
      const app = await svc.createApp();
      expect((await setAliases(svc, app, { userId: 'u1', aliases: ['alice@example.com'], hashing: false })).status).toBe(204);
      expect(await aliasesOf(svc, app, 'u1')).toEqual([{ userId: 'u1', alias: aliasHash(app.appId, 'alice@example.com'), plaintext: 'alice@example.com' }]);
    });

    it('replaces the whole set, and [] clears it', async () => {
      const svc = service();
      const app = await svc.createApp();
      const reg = await registerPasskey(svc, app, { userId: 'u1' });
      await setAliases(svc, app, { userId: 'u1', aliases: ['a@example.com', 'b@example.com'], hashing: false });
      expect(await allowedFor(svc, app, 'a@example.com')).toEqual([expect.objectContaining({ id: reg.credential.idB64 })]);

      expect((await setAliases(svc, app, { userId: 'u1', aliases: ['c@example.com'], hashing: false })).status).toBe(204);
      expect(await plaintextsOf(svc, app, 'u1')).toEqual(['c@example.com']);
      expect(await offers(svc, app, 'a@example.com', reg.credential.idB64)).toBe(false);
      expect(await allowedFor(svc, app, 'c@example.com')).toEqual([expect.objectContaining({ id: reg.credential.idB64 })]);

      expect((await setAliases(svc, app, { userId: 'u1', aliases: [] })).status).toBe(204);
      expect(await aliasesOf(svc, app, 'u1')).toEqual([]);
      expect(await offers(svc, app, 'c@example.com', reg.credential.idB64)).toBe(false);
    });

    it('collapses repeated aliases into one', async () => {
      const svc = service();
      const app = await svc.createApp();
      expect((await setAliases(svc, app, { userId: 'u1', aliases: ['a@example.com', 'a@example.com'], hashing: false })).status).toBe(204);
      expect(await plaintextsOf(svc, app, 'u1')).toEqual(['a@example.com']);
    });

    it('treats aliases as case- and space-sensitive', async () => {
      const svc = service();
      const app = await svc.createApp();
      const reg = await registerPasskey(svc, app, { userId: 'u1' });
      await setAliases(svc, app, { userId: 'u1', aliases: ['Alice'] });
      expect(await allowedFor(svc, app, 'Alice')).toEqual([expect.objectContaining({ id: reg.credential.idB64 })]);
      expect(await offers(svc, app, 'alice', reg.credential.idB64)).toBe(false);
      expect(await offers(svc, app, 'Alice ', reg.credential.idB64)).toBe(false);
    });

    it.each([
      ['aliases is missing', { userId: 'u1' }, 'aliases'],
      ['aliases is null', { userId: 'u1', aliases: null }, 'aliases'],
      ['aliases is not an array', { userId: 'u1', aliases: 'a@example.com' }, 'aliases'],
      ['there are 11 aliases', { userId: 'u1', aliases: Array.from({ length: 11 }, (_, i) => `a${i}`) }, 'aliases'],
      ['an alias is 251 characters', { userId: 'u1', aliases: ['x'.repeat(251)] }, 'aliases'],
      ['an alias is empty', { userId: 'u1', aliases: [''] }, 'aliases'],
      ['userId is missing', { aliases: ['a'] }, 'userId'],
      ['userId is empty', { userId: '', aliases: ['a'] }, 'userId'],
      ['userId holds a NUL character', { userId: 'u\u0000', aliases: ['a'] }, 'userId'],
      ['an alias holds a NUL character', { userId: 'u1', aliases: ['a\u0000'], hashing: false }, 'aliases'],
    ])('answers 400 when %s', async (_case, body, field) => {
      const svc = service();
      const app = await svc.createApp();
      expectValidationProblem(await setAliases(svc, app, body), field);
    });

    it('answers 409 alias_conflict for an alias of another user and changes nothing', async () => {
      const svc = service();
      const app = await svc.createApp();
      await setAliases(svc, app, { userId: 'alice', aliases: ['shared@example.com'], hashing: false });
      await setAliases(svc, app, { userId: 'bob', aliases: ['bob@example.com'], hashing: false });
      const res = await setAliases(svc, app, { userId: 'bob', aliases: ['bob2@example.com', 'shared@example.com'], hashing: false });
      expectProblem(res, 409, 'alias_conflict');
      expect(await plaintextsOf(svc, app, 'alice')).toEqual(['shared@example.com']);
      expect(await plaintextsOf(svc, app, 'bob')).toEqual(['bob@example.com']);
      expect((await setAliases(svc, app, { userId: 'alice', aliases: ['shared@example.com', 'alice@example.com'] })).status).toBe(204);
    });

    it('reads userid in any case from the query, and requires it', async () => {
      const svc = service();
      const app = await svc.createApp();
      await setAliases(svc, app, { userId: 'u1', aliases: ['a@example.com'], hashing: false });
      const lower = await privateApi(svc, app).get('/alias/list?userid=u1');
      expect(lower.status).toBe(200);
      expect(lower.body).toEqual(await aliasesOf(svc, app, 'u1'));
      expectValidationProblem(await privateApi(svc, app).get('/alias/list'), 'userId');
      expectValidationProblem(await privateApi(svc, app).get('/alias/list?userId='), 'userId');
      expectValidationProblem(await privateApi(svc, app).get('/alias/list?userId=%00'), 'userId');
    });
  });

  describe('/credentials/list', () => {
    it('answers the same array to GET ?userId=, GET ?userid= and POST {userId}', async () => {
      const svc = service();
      const app = await svc.createApp();
      await registerPasskey(svc, app, { userId: 'u1' });
      await registerPasskey(svc, app, { userId: 'u1' });
      await registerPasskey(svc, app, { userId: 'u2' });
      const api = privateApi(svc, app);
      const answers = [await api.get('/credentials/list?userId=u1'), await api.get('/credentials/list?userid=u1'), await api.post('/credentials/list', { userId: 'u1' }), await api.post('/credentials/list', { UserId: 'u1' })];
      for (const res of answers) expect(res.status).toBe(200);
      expect(answers[0].body).toHaveLength(2);
      for (const res of answers.slice(1)) expect(res.body).toEqual(answers[0].body);
    });

    it('describes each credential with every field of the spec', async () => {
      const svc = service();
      const app = await svc.createApp();
      const startedAt = Date.now();
      const reg = await registerPasskey(svc, app, { userId: 'u1', nickname: 'phone', headers: { 'User-Agent': CHROME_ON_MAC, 'CF-IPCountry': 'FR' } });
      const [credential] = await credentialsOf(svc, app, 'u1');
      expect(credential).toEqual(
        expect.objectContaining({
          descriptor: { type: 'public-key', id: reg.credential.idB64 },
          publicKey: expect.stringMatching(/^[A-Za-z0-9+/]+={0,2}$/),
          userHandle: Buffer.from('u1').toString('base64'),
          signatureCounter: 0,
          createdAt: expect.stringMatching(TIMESTAMP),
          aaGuid: '00000000-0000-0000-0000-000000000000',
          lastUsedAt: expect.stringMatching(TIMESTAMP),
          rpid: RPID,
          origin: ORIGIN,
          country: 'FR',
          device: expect.stringContaining('Chrome'),
          nickname: 'phone',
          userId: 'u1',
        }),
      );
      expect(Buffer.from(credential.publicKey, 'base64').equals(reg.credential.cosePublicKey)).toBe(true);
      expect(Date.parse(credential.createdAt)).toBeGreaterThanOrEqual(startedAt);
      expect(credential.lastUsedAt).toBe(credential.createdAt);
    });

    it('shows the authenticator’s AAGUID and its counter after sign-in', async () => {
      const svc = service();
      const app = await svc.createApp();
      const aaguid = Buffer.from('adce000235bcc60a648b0b25f1f05503', 'hex');
      const reg = await registerPasskey(svc, app, { userId: 'u1', authenticator: { aaguid, counter: 41 } });
      expect((await signIn(svc, app, reg.credential, { assertion: { counter: 42 } })).complete.status).toBe(200);
      const [credential] = await credentialsOf(svc, app, 'u1');
      expect(credential).toMatchObject({ aaGuid: 'adce0002-35bc-c60a-648b-0b25f1f05503', signatureCounter: 42 });
    });

    it('answers [] for a user without credentials', async () => {
      const svc = service();
      const app = await svc.createApp();
      expect(await credentialsOf(svc, app, 'nobody')).toEqual([]);
    });

    it('requires a userId', async () => {
      const svc = service();
      const app = await svc.createApp();
      const api = privateApi(svc, app);
      expectValidationProblem(await api.get('/credentials/list'), 'userId');
      expectValidationProblem(await api.get('/credentials/list?userId='), 'userId');
      expectValidationProblem(await api.post('/credentials/list', {}), 'userId');
      expectValidationProblem(await api.post('/credentials/list', { userId: '' }), 'userId');
      expectValidationProblem(await api.post('/credentials/list', { userId: null }), 'userId');
      expectValidationProblem(await api.get('/credentials/list?userId=a&userId=b'), 'userId');
      expectValidationProblem(await api.get('/credentials/list?userId=%00'), 'userId');
      expectValidationProblem(await api.post('/credentials/list', { userId: '\u0000' }), 'userId');
    });
  });

  describe('sdkCompatibleLists', () => {
    it('switches all three lists to {values: [...]}', async () => {
      const svc = service();
      const app = await svc.createApp();
      await registerPasskey(svc, app, { userId: 'u1', aliases: ['a@example.com'], aliasHashing: false });
      const api = privateApi(svc, app);
      const bare = {
        credentials: (await api.get('/credentials/list?userId=u1')).body,
        aliases: (await api.get('/alias/list?userId=u1')).body,
        users: (await api.get('/users/list')).body,
      };
      for (const list of Object.values(bare)) {
        expect(Array.isArray(list)).toBe(true);
        expect(list).toHaveLength(1);
      }

      await setFeatures(svc, app, { sdkCompatibleLists: true });
      expect((await api.get('/credentials/list?userId=u1')).body).toEqual({ values: bare.credentials });
      expect((await api.post('/credentials/list', { userId: 'u1' })).body).toEqual({ values: bare.credentials });
      expect((await api.get('/alias/list?userId=u1')).body).toEqual({ values: bare.aliases });
      expect((await api.get('/users/list')).body).toEqual({ values: bare.users });
      expect((await api.get('/users/count')).body).toEqual({ count: 1 });

      await setFeatures(svc, app, { sdkCompatibleLists: false });
      expect((await api.get('/users/list')).body).toEqual(bare.users);
    });
  });

  describe('POST /credentials/delete', () => {
    it('removes the credential, which then no longer signs in', async () => {
      const svc = service();
      const app = await svc.createApp();
      const keep = await registerPasskey(svc, app, { userId: 'u1' });
      const gone = await registerPasskey(svc, app, { userId: 'u1' });
      const res = await privateApi(svc, app).post('/credentials/delete', { credentialId: gone.credential.idB64 });
      expect(res.status).toBe(204);
      expect(res.text).toBe('');
      expect((await credentialsOf(svc, app, 'u1')).map((c: { descriptor: { id: string } }) => c.descriptor.id)).toEqual([keep.credential.idB64]);
      const attempt = await signIn(svc, app, gone.credential);
      expectProblem(attempt.complete, 400, 'unknown_credential');
      expect((await signIn(svc, app, keep.credential)).complete.status).toBe(200);
    });

    it('accepts the standard base64 form of the id', async () => {
      const svc = service();
      const app = await svc.createApp();
      const credentialId = Buffer.from('fbffbf0123fbffbf4567fbffbf89abcd', 'hex');
      await registerPasskey(svc, app, { userId: 'u1', authenticator: { credentialId } });
      const standard = toStandardBase64(credentialId.toString('base64url'));
      expect(standard).toMatch(/[+/]/);
      expect((await privateApi(svc, app).post('/credentials/delete', { credentialId: standard })).status).toBe(204);
      expect(await credentialsOf(svc, app, 'u1')).toEqual([]);
    });

    it('answers 204 for an unknown id and changes nothing', async () => {
      const svc = service();
      const app = await svc.createApp();
      await registerPasskey(svc, app, { userId: 'u1' });
      const before = await credentialsOf(svc, app, 'u1');
      expect((await privateApi(svc, app).post('/credentials/delete', { credentialId: randomBytes(16).toString('base64url') })).status).toBe(204);
      expect(await credentialsOf(svc, app, 'u1')).toEqual(before);
    });

    it.each([
      ['missing', {}],
      ['empty', { credentialId: '' }],
      ['not base64', { credentialId: 'not base64!' }],
    ])('answers 400 when the id is %s', async (_case, body) => {
      const svc = service();
      const app = await svc.createApp();
      expectValidationProblem(await privateApi(svc, app).post('/credentials/delete', body), 'credentialId');
    });
  });

  describe('/users', () => {
    it('lists every user with credentials or aliases', async () => {
      const svc = service();
      const app = await svc.createApp();
      const startedAt = Date.now();
      await registerPasskey(svc, app, { userId: 'alice', aliases: ['alice@example.com', 'al'], aliasHashing: false });
      await registerPasskey(svc, app, { userId: 'alice' });
      await registerPasskey(svc, app, { userId: 'bob', aliases: ['bob@example.com'] });
      await setAliases(svc, app, { userId: 'carol', aliases: ['carol@example.com'], hashing: false });

      const res = await privateApi(svc, app).get('/users/list');
      expect(res.status).toBe(200);
      const byId = Object.fromEntries((res.body as { userId: string; lastUsedAt: string }[]).map((u) => [u.userId, u]));
      expect(Object.keys(byId).sort()).toEqual(['alice', 'bob', 'carol']);
      expect(byId.alice).toEqual({ userId: 'alice', aliasCount: 2, aliases: expect.arrayContaining(['alice@example.com', 'al']), credentialsCount: 2, lastUsedAt: expect.stringMatching(TIMESTAMP) });
      expect(Date.parse(byId.alice.lastUsedAt)).toBeGreaterThanOrEqual(startedAt);
      expect(byId.bob).toEqual({ userId: 'bob', aliasCount: 1, aliases: [null], credentialsCount: 1, lastUsedAt: expect.stringMatching(TIMESTAMP) });
      expect(byId.carol).toEqual({ userId: 'carol', aliasCount: 1, aliases: ['carol@example.com'], credentialsCount: 0, lastUsedAt: null });
    });

    it('counts the users that have credentials', async () => {
      const svc = service();
      const app = await svc.createApp();
      expect((await privateApi(svc, app).get('/users/count')).body).toEqual({ count: 0 });
      await registerPasskey(svc, app, { userId: 'alice' });
      await registerPasskey(svc, app, { userId: 'alice' });
      await registerPasskey(svc, app, { userId: 'bob' });
      await setAliases(svc, app, { userId: 'carol', aliases: ['carol@example.com'] });
      expect((await privateApi(svc, app).get('/users/count')).body).toEqual({ count: 2 });
    });

    it('deletes a user’s credentials and aliases, and no one else’s', async () => {
      const svc = service();
      const app = await svc.createApp();
      const alice = await registerPasskey(svc, app, { userId: 'alice', aliases: ['alice@example.com'] });
      const bob = await registerPasskey(svc, app, { userId: 'bob', aliases: ['bob@example.com'] });
      const res = await privateApi(svc, app).post('/users/delete', { userId: 'alice' });
      expect(res.status).toBe(204);
      expect(await credentialsOf(svc, app, 'alice')).toEqual([]);
      expect(await aliasesOf(svc, app, 'alice')).toEqual([]);
      expectProblem((await signIn(svc, app, alice.credential)).complete, 400, 'unknown_credential');
      expect((await privateApi(svc, app).get('/users/list')).body.map((u: { userId: string }) => u.userId)).toEqual(['bob']);
      expect((await signIn(svc, app, bob.credential, { alias: 'bob@example.com' })).complete.status).toBe(200);
      // The alias is free again.
      expect((await setAliases(svc, app, { userId: 'carol', aliases: ['alice@example.com'] })).status).toBe(204);
    });

    it('requires a userId to delete', async () => {
      const svc = service();
      const app = await svc.createApp();
      expectValidationProblem(await privateApi(svc, app).post('/users/delete', {}), 'userId');
      expectValidationProblem(await privateApi(svc, app).post('/users/delete', { userId: '' }), 'userId');
      expectValidationProblem(await privateApi(svc, app).post('/users/delete', { userId: 'u\u0000' }), 'userId');
    });
  });

  describe('tenant isolation', () => {
    it('app B’s secret neither sees nor deletes app A’s credentials, aliases and users', async () => {
      const svc = service();
      const appA = await svc.createApp();
      const appB = await svc.createApp();
      const reg = await registerPasskey(svc, appA, { userId: 'u1', aliases: ['a@example.com'], aliasHashing: false });
      const before = { credentials: await credentialsOf(svc, appA, 'u1'), aliases: await aliasesOf(svc, appA, 'u1') };

      const asB = privateApi(svc, appB);
      expect((await asB.get('/credentials/list?userId=u1')).body).toEqual([]);
      expect((await asB.post('/credentials/list', { userId: 'u1' })).body).toEqual([]);
      expect((await asB.get('/alias/list?userId=u1')).body).toEqual([]);
      expect((await asB.get('/users/list')).body).toEqual([]);
      expect((await asB.get('/users/count')).body).toEqual({ count: 0 });
      expect((await asB.post('/credentials/delete', { credentialId: reg.credential.idB64 })).status).toBe(204);
      expect((await asB.post('/users/delete', { userId: 'u1' })).status).toBe(204);
      expect((await asB.post('/alias', { userId: 'u1', aliases: [] })).status).toBe(204);

      expect(await credentialsOf(svc, appA, 'u1')).toEqual(before.credentials);
      expect(await aliasesOf(svc, appA, 'u1')).toEqual(before.aliases);
      expect((await signIn(svc, appA, reg.credential, { alias: 'a@example.com' })).complete.status).toBe(200);
    });

    it('lets the same credential id be registered in two apps independently', async () => {
      const svc = service();
      const appA = await svc.createApp();
      const appB = await svc.createApp();
      const credentialId = randomBytes(32);
      const inA = await registerPasskey(svc, appA, { userId: 'u1', authenticator: { credentialId } });
      const inB = await registerPasskey(svc, appB, { userId: 'u2', authenticator: { credentialId } });
      expect([inA.complete.status, inB.complete.status]).toEqual([200, 200]);

      expect((await privateApi(svc, appB).post('/credentials/delete', { credentialId: credentialId.toString('base64url') })).status).toBe(204);
      expect(await credentialsOf(svc, appB, 'u2')).toEqual([]);
      expect(await credentialsOf(svc, appA, 'u1')).toHaveLength(1);
      expect((await signIn(svc, appA, inA.credential)).complete.status).toBe(200);
      expectProblem((await signIn(svc, appB, inB.credential)).complete, 400, 'unknown_credential');
    });

    it('lets one alias belong to different users in two apps', async () => {
      const svc = service();
      const appA = await svc.createApp();
      const appB = await svc.createApp();
      const inA = await registerPasskey(svc, appA, { userId: 'alice', aliases: ['x'] });
      const inB = await registerPasskey(svc, appB, { userId: 'bob', aliases: ['x'] });
      expect([inA.complete.status, inB.complete.status]).toEqual([200, 200]);
      expect(await allowedFor(svc, appA, 'x')).toEqual([expect.objectContaining({ id: inA.credential.idB64 })]);
      expect(await allowedFor(svc, appB, 'x')).toEqual([expect.objectContaining({ id: inB.credential.idB64 })]);
      expect((await setAliases(svc, appB, { userId: 'bob', aliases: ['x', 'y'] })).status).toBe(204);
    });
  });
});
