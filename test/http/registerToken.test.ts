import { ORIGIN, RPID, finishRegistration, registerPasskey, verifyToken } from '../support/ceremonies';
import { expectProblem, expectValidationProblem, useTestService } from '../support/problems';
import { aliasesOf, beginRegistration, publicApi, requestRegisterToken, setFeatures, tokenServiceAt } from '../support/privateApi';
import { startServiceProcess } from '../support/serviceProcess';
import { createCredential } from '../support/softwareAuthenticator';
import { providers, type TestApp } from '../support/testService';

const userHandle = (userId: string) => Buffer.from(userId, 'utf8').toString('base64url');

/** The .NET SDK writes DateTime with seven fractional digits. */
function dotNetTimestamp(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$14567Z');
}

describe.each(providers())('POST /register/token on %s', (provider) => {
  const service = useTestService(provider);

  describe('defaults', () => {
    it('issues a register_ token whose options are the spec defaults', async () => {
      const svc = service();
      const app = await svc.createApp();
      const tokenRes = await requestRegisterToken(svc, app, { userId: 'u1', username: 'alice' });
      expect(tokenRes.status).toBe(200);
      expect(tokenRes.body).toEqual({ token: expect.stringMatching(/^register_/) });

      const begin = await publicApi(svc, app).post('/register/begin', { token: tokenRes.body.token, RPID, Origin: ORIGIN });
      expect(begin.status).toBe(200);
      expect(begin.body.session).toMatch(/^session_/);
      const { data } = begin.body;
      expect(data.rp).toEqual({ id: RPID, name: RPID });
      expect(data.user).toEqual({ id: userHandle('u1'), name: 'alice', displayName: 'alice' });
      expect(data.attestation).toBe('none');
      expect(data.authenticatorSelection).toEqual({ residentKey: 'required', requireResidentKey: true, userVerification: 'preferred' });
      expect(data.timeout).toBe(60000);
      expect(data.challenge).toMatch(/^[A-Za-z0-9_-]{22,}$/);
      expect(data.pubKeyCredParams.map((p: { alg: number }) => p.alg)).toEqual(expect.arrayContaining([-8, -7, -257]));
      expect(data.pubKeyCredParams.every((p: { type: string }) => p.type === 'public-key')).toBe(true);
      expect(data.excludeCredentials).toEqual([]);
      expect(data.hints).toEqual([]);
    });

    it('lets the token live 120 seconds by default', async () => {
      const svc = service();
      const app = await svc.createApp();
      const { token } = (await requestRegisterToken(svc, app, { userId: 'u1', username: 'alice' })).body;
      await expect(tokenServiceAt(svc, 115_000).open('register', token, app.appId)).resolves.toMatchObject({ userId: 'u1' });
      await expect(tokenServiceAt(svc, 125_000).open('register', token, app.appId)).rejects.toMatchObject({ code: 'expired_token' });
    });

    it('hashes aliases unless aliasHashing is false', async () => {
      const svc = service();
      const app = await svc.createApp();
      const hashed = await registerPasskey(svc, app, { aliases: ['hashed@example.com'] });
      const plain = await registerPasskey(svc, app, { aliases: ['plain@example.com'], aliasHashing: false });
      expect(hashed.complete.status).toBe(200);
      expect(plain.complete.status).toBe(200);
      expect(await aliasesOf(svc, app, hashed.userId)).toEqual([{ userId: hashed.userId, alias: expect.not.stringContaining('hashed@'), plaintext: null }]);
      expect(await aliasesOf(svc, app, plain.userId)).toEqual([{ userId: plain.userId, alias: expect.any(String), plaintext: 'plain@example.com' }]);
    });
  });

  describe('every field is reflected by /register/begin', () => {
    it('uses displayname for user.displayName', async () => {
      const svc = service();
      const app = await svc.createApp();
      const begin = await beginRegistration(svc, app, { userId: 'u1', username: 'alice', displayname: 'Alice Liddell' });
      expect(begin.body.data.user).toEqual({ id: userHandle('u1'), name: 'alice', displayName: 'Alice Liddell' });
    });

    it.each([
      ['platform', 'platform'],
      ['cross-platform', 'cross-platform'],
      ['CrossPlatform', 'cross-platform'],
    ])('authenticatorType %s asks for the %s attachment', async (authenticatorType, attachment) => {
      const svc = service();
      const app = await svc.createApp();
      const begin = await beginRegistration(svc, app, { userId: 'u1', username: 'alice', authenticatorType });
      expect(begin.body.data.authenticatorSelection.authenticatorAttachment).toBe(attachment);
    });

    it('authenticatorType any asks for no attachment', async () => {
      const svc = service();
      const app = await svc.createApp();
      const begin = await beginRegistration(svc, app, { userId: 'u1', username: 'alice', authenticatorType: 'any' });
      expect(begin.body.data.authenticatorSelection).not.toHaveProperty('authenticatorAttachment');
    });

    it('discoverable false discourages a resident key', async () => {
      const svc = service();
      const app = await svc.createApp();
      const begin = await beginRegistration(svc, app, { userId: 'u1', username: 'alice', discoverable: false });
      expect(begin.body.data.authenticatorSelection).toMatchObject({ residentKey: 'discouraged', requireResidentKey: false });
    });

    it.each(['required', 'discouraged', 'Preferred'])('userVerification %s is passed on in lowercase', async (userVerification) => {
      const svc = service();
      const app = await svc.createApp();
      const begin = await beginRegistration(svc, app, { userId: 'u1', username: 'alice', userVerification });
      expect(begin.body.data.authenticatorSelection.userVerification).toBe(userVerification.toLowerCase());
    });

    it('keeps the token until the given expiresAt and no longer', async () => {
      const svc = service();
      const app = await svc.createApp();
      const expiresAt = new Date(Date.now() + 3600_000).toISOString();
      const { token } = (await requestRegisterToken(svc, app, { userId: 'u1', username: 'alice', expiresAt })).body;
      await expect(tokenServiceAt(svc, 3590_000).open('register', token, app.appId)).resolves.toMatchObject({ userId: 'u1' });
      await expect(tokenServiceAt(svc, 3610_000).open('register', token, app.appId)).rejects.toMatchObject({ code: 'expired_token' });
    });

    it('passes hints on', async () => {
      const svc = service();
      const app = await svc.createApp();
      const begin = await beginRegistration(svc, app, { userId: 'u1', username: 'alice', hints: ['security-key', 'hybrid'] });
      expect(begin.body.data.hints).toEqual(['security-key', 'hybrid']);
    });

    it('excludes the user’s existing passkeys, with their transports', async () => {
      const svc = service();
      const app = await svc.createApp();
      const first = await registerPasskey(svc, app, { userId: 'u1', authenticator: { transports: ['internal', 'hybrid'] } });
      expect(first.complete.status).toBe(200);
      const begin = await beginRegistration(svc, app, { userId: 'u1', username: 'alice' });
      expect(begin.body.data.excludeCredentials).toEqual([{ type: 'public-key', id: first.credential.idB64, transports: ['internal', 'hybrid'] }]);
      const otherUser = await beginRegistration(svc, app, { userId: 'u2', username: 'bob' });
      expect(otherUser.body.data.excludeCredentials).toEqual([]);
    });
  });

  describe('the bodies the SDKs send', () => {
    it('accepts PascalCase property names', async () => {
      const svc = service();
      const app = await svc.createApp();
      const begin = await beginRegistration(svc, app, { UserId: 'u1', Username: 'alice', DisplayName: 'Alice', Discoverable: false });
      expect(begin.status).toBe(200);
      expect(begin.body.data.user).toEqual({ id: userHandle('u1'), name: 'alice', displayName: 'Alice' });
      expect(begin.body.data.authenticatorSelection.residentKey).toBe('discouraged');
    });

    it('accepts a numeric userId as its decimal string', async () => {
      const svc = service();
      const app = await svc.createApp();
      const begin = await beginRegistration(svc, app, { userId: 12345, username: 'alice' });
      expect(begin.status).toBe(200);
      expect(begin.body.data.user.id).toBe(userHandle('12345'));
    });

    it('accepts the Node SDK default body', async () => {
      const svc = service();
      const app = await svc.createApp();
      const body = {
        attestation: 'none',
        discoverable: true,
        userVerification: 'preferred',
        aliasHashing: true,
        userId: 'u1',
        username: 'alice',
        aliases: ['a@b.c'],
        expiresAt: new Date(Date.now() + 24 * 3600_000).toISOString(),
      };
      const tokenRes = await requestRegisterToken(svc, app, body);
      expect(tokenRes.status).toBe(200);
      expect(tokenRes.body.token).toMatch(/^register_/);
      const begin = await publicApi(svc, app).post('/register/begin', { token: tokenRes.body.token, RPID, Origin: ORIGIN });
      expect(begin.body.data).toMatchObject({ attestation: 'none', authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' } });
    });

    it('accepts the .NET SDK body (capitalised enums, seven fractional digits)', async () => {
      const svc = service();
      const app = await svc.createApp();
      const body = {
        userId: 'u1',
        username: 'alice',
        displayName: null,
        attestation: 'None',
        authenticatorType: 'any',
        discoverable: true,
        userVerification: 'Preferred',
        aliases: ['alice@example.com'],
        aliasHashing: true,
        expiresAt: dotNetTimestamp(Date.now() + 120_000),
        hints: [],
      };
      const tokenRes = await requestRegisterToken(svc, app, body);
      expect(tokenRes.status).toBe(200);
      expect(tokenRes.body.token).toMatch(/^register_/);
      const begin = await publicApi(svc, app).post('/register/begin', { token: tokenRes.body.token, RPID, Origin: ORIGIN });
      expect(begin.body.data).toMatchObject({ attestation: 'none', authenticatorSelection: { userVerification: 'preferred' }, user: { displayName: 'alice' } });
      expect(begin.body.data.authenticatorSelection).not.toHaveProperty('authenticatorAttachment');
    });
  });

  describe('validation', () => {
    it.each([
      ['missing', { username: 'alice' }],
      ['empty', { userId: '', username: 'alice' }],
      ['null', { userId: null, username: 'alice' }],
    ])('rejects a userId that is %s', async (_case, body) => {
      const svc = service();
      const res = await requestRegisterToken(svc, await svc.createApp(), body);
      expectValidationProblem(res, 'userId');
    });

    it('accepts a userId of 64 bytes and rejects one of 65', async () => {
      const svc = service();
      const app = await svc.createApp();
      const sixtyFour = 'é'.repeat(32);
      expect(Buffer.byteLength(sixtyFour)).toBe(64);
      expect((await requestRegisterToken(svc, app, { userId: sixtyFour, username: 'alice' })).status).toBe(200);
      expectValidationProblem(await requestRegisterToken(svc, app, { userId: `a${sixtyFour}`, username: 'alice' }), 'userId');
    });

    it.each(['username', 'displayName'])('accepts a %s of 256 characters and rejects one of 257', async (field) => {
      const svc = service();
      const app = await svc.createApp();
      expect((await requestRegisterToken(svc, app, { userId: 'u1', username: 'alice', [field]: 'x'.repeat(256) })).status).toBe(200);
      expectValidationProblem(await requestRegisterToken(svc, app, { userId: 'u1', username: 'alice', [field]: 'x'.repeat(257) }), field);
    });

    it.each([
      ['missing', { userId: 'u1' }],
      ['empty', { userId: 'u1', username: '' }],
    ])('rejects a username that is %s', async (_case, body) => {
      const svc = service();
      expectValidationProblem(await requestRegisterToken(svc, await svc.createApp(), body), 'username');
    });

    it('accepts 10 aliases and rejects 11', async () => {
      const svc = service();
      const app = await svc.createApp();
      const aliases = (n: number) => Array.from({ length: n }, (_, i) => `alias${i}@example.com`);
      expect((await requestRegisterToken(svc, app, { userId: 'u1', username: 'a', aliases: aliases(10) })).status).toBe(200);
      expectValidationProblem(await requestRegisterToken(svc, app, { userId: 'u1', username: 'a', aliases: aliases(11) }), 'aliases');
    });

    it('accepts a 250-character alias and rejects a 251-character one', async () => {
      const svc = service();
      const app = await svc.createApp();
      expect((await requestRegisterToken(svc, app, { userId: 'u1', username: 'a', aliases: ['x'.repeat(250)] })).status).toBe(200);
      expectValidationProblem(await requestRegisterToken(svc, app, { userId: 'u1', username: 'a', aliases: ['x'.repeat(251)] }), 'aliases');
    });

    it('rejects an empty alias', async () => {
      const svc = service();
      const app = await svc.createApp();
      expectValidationProblem(await requestRegisterToken(svc, app, { userId: 'u1', username: 'a', aliases: ['ok@example.com', ''] }), 'aliases');
    });

    it.each([
      ['authenticatorType', 'roaming'],
      ['userVerification', 'always'],
      ['hints', ['security-key', 'hybrid', 'client-device', 'security-key']],
      ['discoverable', 'maybe'],
    ])('rejects an invalid %s', async (field, value) => {
      const svc = service();
      expectValidationProblem(await requestRegisterToken(svc, await svc.createApp(), { userId: 'u1', username: 'a', [field]: value }), field);
    });

    it.each([
      ['in the past', -60_000],
      ['more than 30 days away', 31 * 24 * 3600_000],
    ])('rejects an expiresAt %s', async (_case, offset) => {
      const svc = service();
      const res = await requestRegisterToken(svc, await svc.createApp(), { userId: 'u1', username: 'a', expiresAt: new Date(Date.now() + offset).toISOString() });
      expectValidationProblem(res, 'expiresAt');
    });

    it.each([
      ['userId', { userId: 'u\u00001', username: 'a' }],
      ['username', { userId: 'u1', username: 'a\u0000' }],
      ['aliases', { userId: 'u1', username: 'a', aliases: ['a\u0000b'], aliasHashing: false }],
    ])('rejects a NUL character in %s on every store', async (field, body) => {
      const svc = service();
      expectValidationProblem(await requestRegisterToken(svc, await svc.createApp(), body), field);
    });

    it('rejects a body that is not an object', async () => {
      const svc = service();
      const app = await svc.createApp();
      const res = await requestRegisterToken(svc, app, ['u1']);
      expectProblem(res, 400, 'validation_failed');
    });
  });

  describe('attestation', () => {
    it('rejects an unknown attestation type', async () => {
      const svc = service();
      const res = await requestRegisterToken(svc, await svc.createApp(), { userId: 'u1', username: 'a', attestation: 'enterprise' });
      expectProblem(res, 400, 'invalid_attestation');
    });

    it.each(['direct', 'indirect'])('refuses %s attestation on a trial app', async (attestation) => {
      const svc = service();
      const res = await requestRegisterToken(svc, await svc.createApp(), { userId: 'u1', username: 'a', attestation });
      expectProblem(res, 400, 'attestation_not_supported_on_plan');
    });

    it('refuses direct attestation on a pro app', async () => {
      const svc = service();
      const res = await requestRegisterToken(svc, await svc.createApp({ plan: 'pro' }), { userId: 'u1', username: 'a', attestation: 'direct' });
      expectProblem(res, 400, 'attestation_not_supported_on_plan');
    });

    it.each(['direct', 'indirect', 'Direct'])('allows %s attestation on an enterprise app', async (attestation) => {
      const svc = service();
      const begin = await beginRegistration(svc, await svc.createApp({ plan: 'enterprise' }), { userId: 'u1', username: 'a', attestation });
      expect(begin.status).toBe(200);
      expect(begin.body.data.attestation).toBe(attestation.toLowerCase());
    });

    it('refuses at begin a direct-attestation token once the app is no longer enterprise', async () => {
      const svc = service();
      const app = await svc.createApp({ plan: 'enterprise' });
      const { token } = (await requestRegisterToken(svc, app, { userId: 'u1', username: 'a', attestation: 'direct' })).body;
      await setFeatures(svc, app, { plan: 'trial', allowAttestation: false });
      const begin = await publicApi(svc, app).post('/register/begin', { token, RPID, Origin: ORIGIN });
      expectProblem(begin, 400, 'attestation_not_supported_on_plan');
    });
  });

  describe('aliases and users', () => {
    it('refuses an alias that belongs to another user with 409 alias_conflict', async () => {
      const svc = service();
      const app = await svc.createApp();
      expect((await registerPasskey(svc, app, { userId: 'owner', aliases: ['taken@example.com'] })).complete.status).toBe(200);
      const res = await requestRegisterToken(svc, app, { userId: 'intruder', username: 'i', aliases: ['free@example.com', 'taken@example.com'] });
      expectProblem(res, 409, 'alias_conflict');
      const own = await requestRegisterToken(svc, app, { userId: 'owner', username: 'o', aliases: ['taken@example.com'] });
      expect(own.status).toBe(200);
    });

    it('refuses a new user once maxUsers is reached, but not an existing one', async () => {
      const svc = service();
      const app = await svc.createApp();
      await setFeatures(svc, app, { maxUsers: 1 });
      expect((await registerPasskey(svc, app, { userId: 'first' })).complete.status).toBe(200);
      expectProblem(await requestRegisterToken(svc, app, { userId: 'second', username: 's' }), 400, 'max_users_reached');
      expect((await requestRegisterToken(svc, app, { userId: 'first', username: 'f' })).status).toBe(200);
      await setFeatures(svc, app, { maxUsers: null });
      expect((await requestRegisterToken(svc, app, { userId: 'second', username: 's' })).status).toBe(200);
    });
  });
});

describe('a register token registers one passkey, on a service process', () => {
  let svc: Awaited<ReturnType<typeof startServiceProcess>>;
  let app: TestApp;
  beforeAll(async () => {
    svc = await startServiceProcess();
    app = await svc.createApp();
  }, 60_000);
  afterAll(() => svc?.stop(), 60_000);

  const newToken = async (userId: string) => (await svc.http.post('/register/token').set('ApiSecret', app.apiSecret).send({ userId, username: `${userId}@example.com` })).body.token as string;
  const begin = (token: string) => svc.http.post('/register/begin').set('ApiKey', app.apiKey).send({ token, RPID, Origin: ORIGIN });
  const passkeysOf = async (userId: string) => (await svc.http.get(`/credentials/list?userId=${userId}`).set('ApiSecret', app.apiSecret)).body as unknown[];

  it('refuses the second use with 400 token_already_used, at begin and at complete, and stores one passkey', async () => {
    const token = await newToken('single-use');
    // Two ceremonies begun with one token (two tabs, or a replay of the token): the first to complete wins.
    const [first, second] = [await begin(token), await begin(token)];
    expect([first.status, second.status]).toEqual([200, 200]);
    const complete = (started: typeof first) => {
      const { response } = createCredential({ challenge: started.body.data.challenge, rpId: RPID, origin: ORIGIN, userHandle: started.body.data.user.id });
      return svc.http.post('/register/complete').set('ApiKey', app.apiKey).send({ session: started.body.session, response, RPID, Origin: ORIGIN });
    };
    const done = await complete(first);
    expect(done.status).toBe(200);
    expectProblem(await complete(second), 400, 'token_already_used');
    // A third ceremony is refused before the browser is asked to make a passkey.
    expectProblem(await begin(token), 400, 'token_already_used');
    expect(await passkeysOf('single-use')).toHaveLength(1);
    // The passkey it did register works, and its own verify token is unaffected.
    expect((await verifyToken(svc, app, done.body.token)).body).toMatchObject({ success: true, userId: 'single-use', type: 'passkey_register' });
  });

  it('lets a registration that failed be retried with the same token (the browser client retries that way)', async () => {
    const token = await newToken('retrying');
    const failed = await begin(token);
    const { response } = createCredential({ challenge: failed.body.data.challenge, rpId: RPID, origin: 'https://evil.example.com', userHandle: failed.body.data.user.id });
    expectProblem(await svc.http.post('/register/complete').set('ApiKey', app.apiKey).send({ session: failed.body.session, response, RPID, Origin: ORIGIN }), 400, 'fido2_invalid_registration');
    const retried = await finishRegistration(svc, app, token);
    expect(retried.complete.status).toBe(200);
    expect(await passkeysOf('retrying')).toHaveLength(1);
    expectProblem(await begin(token), 400, 'token_already_used');
  });

  it('spends a proofId once: of racing register/token requests with one proof, exactly one gets a token; a refused one spends nothing', async () => {
    const proofId = `proof-${Math.random().toString(36).slice(2)}-0123456789`;
    const ask = (body: Record<string, unknown> = {}) => svc.http.post('/register/token').set('ApiSecret', app.apiSecret).send({ userId: 'proven', username: 'proven@example.com', proofId, ...body });
    // A request refused for another reason (an alias of another user) does not spend the proof.
    await svc.http.post('/alias').set('ApiSecret', app.apiSecret).send({ userId: 'someone-else', aliases: ['taken@example.com'], hashing: false }).expect(204);
    expectProblem(await ask({ aliases: ['taken@example.com'], aliasHashing: false }), 409, 'alias_conflict');
    // Every request sent before any answer is read.
    const answers = await Promise.all(Array.from({ length: 6 }, () => ask()));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409, 409, 409, 409, 409]);
    for (const refused of answers.filter((a) => a.status === 409)) expectProblem(refused, 409, 'proof_already_used');
    // The proof is the app's: another app may use the same id.
    const other = await svc.createApp();
    expect((await svc.http.post('/register/token').set('ApiSecret', other.apiSecret).send({ userId: 'proven', username: 'p', proofId })).status).toBe(200);
    expectValidationProblem(await ask({ proofId: 'short' }), 'proofId');
  });
});
