/**
 * Extensions pass through (issue 35, item 6): a registration and an authentication configuration
 * ask for prf, largeBlob and credProps; sign-in options carry each passkey's own PRF salt; the list
 * says which passkeys have PRF; and PRF outputs a client posts anyway are neither kept nor echoed.
 */
import pino from 'pino';
import { ORIGIN, RPID, registerPasskey, signIn, verifyToken } from '../support/ceremonies';
import { rawDump } from '../support/databaseContent';
import { credentialsOf, privateApi, publicApi } from '../support/privateApi';
import { expectValidationProblem } from '../support/problems';
import { prfOutput } from '../support/softwareAuthenticator';
import { providers, startTestService, type TestApp, type TestService } from '../support/testService';

const SALT = /^[A-Za-z0-9_-]{43}$/; // 32 bytes, base64url

describe.each(providers())('passkey extensions on %s', (provider) => {
  let svc: TestService;
  const logLines: string[] = [];
  beforeAll(async () => {
    svc = await startTestService(provider, {}, { logger: pino({ level: 'debug' }, { write: (line: string) => void logLines.push(line) }) });
  });
  afterAll(() => svc.close());

  const beginSignin = (app: TestApp, body: Record<string, unknown>) => publicApi(svc, app).post('/signin/begin', { RPID: RPID, Origin: ORIGIN, ...body });
  const askPrfAtSignIn = async (app: TestApp, extensions: Record<string, unknown> = { prf: true }) => {
    const res = await privateApi(svc, app).post('/auth-configs', { purpose: 'sign-in', extensions, performedBy: 'admin' });
    expect(res.status).toBe(204);
  };

  it('puts what a registration asks for in the creation options, and credProps alone by default', async () => {
    const app = await svc.createApp();
    const asked = await registerPasskey(svc, app, { tokenBody: { extensions: { prf: true, largeBlob: 'preferred' } } });
    expect(asked.begin.body.data.extensions).toEqual({ credProps: true, prf: {}, largeBlob: { support: 'preferred' } });
    const plain = await registerPasskey(svc, app);
    expect(plain.begin.body.data.extensions).toEqual({ credProps: true });
    const none = await registerPasskey(svc, app, { tokenBody: { extensions: { credProps: false } } });
    expect(none.begin.body.data.extensions).toEqual({});
  });

  it('refuses an extension it does not know, or a value it does not take, naming the field', async () => {
    const app = await svc.createApp();
    const token = (extensions: unknown) => privateApi(svc, app).post('/register/token', { userId: 'u', username: 'u', extensions });
    expectValidationProblem(await token({ hmacCreateSecret: true }), 'extensions');
    expectValidationProblem(await token({ largeBlob: 'always' }), 'extensions.largeBlob');
    const config = (extensions: unknown) => privateApi(svc, app).post('/auth-configs/add', { purpose: 'p', timeToLive: '00:02:00', performedBy: 'a', extensions });
    expectValidationProblem(await config({ credProps: true }), 'extensions');
    expectValidationProblem(await config({ largeBlob: 'write' }), 'extensions.largeBlob');
  });

  it('lists which passkeys have PRF, from what the registration reported', async () => {
    const app = await svc.createApp();
    const userId = 'prf-list';
    await registerPasskey(svc, app, { userId, nickname: 'has prf', tokenBody: { extensions: { prf: true } } });
    await registerPasskey(svc, app, { userId, nickname: 'no prf', tokenBody: { extensions: { prf: true } }, authenticator: { prf: false } });
    await registerPasskey(svc, app, { userId, nickname: 'not asked' });
    const listed = (await credentialsOf(svc, app, userId)) as { nickname: string; prfEnabled: boolean | null }[];
    expect(listed.map((c) => [c.nickname, c.prfEnabled])).toEqual([
      ['has prf', true],
      ['no prf', false],
      ['not asked', null],
    ]);
  });

  it('offers each passkey its own PRF salt at sign-in, the same on every sign-in, and none to a discoverable one', async () => {
    const app = await svc.createApp();
    const userId = 'salted';
    const first = await registerPasskey(svc, app, { userId, aliases: ['salted@example.com'] });
    const second = await registerPasskey(svc, app, { userId });
    // The built-in sign-in asks for nothing until its configuration says so.
    expect((await beginSignin(app, { userId })).body.data).not.toHaveProperty('extensions');
    await askPrfAtSignIn(app, { prf: true, largeBlob: 'read' });

    const begin = await beginSignin(app, { userId });
    const byCredential = begin.body.data.extensions.prf.evalByCredential as Record<string, { first: string }>;
    expect(Object.keys(byCredential).sort()).toEqual([first.credential.idB64, second.credential.idB64].sort());
    const [a, b] = [byCredential[first.credential.idB64].first, byCredential[second.credential.idB64].first];
    expect([a, b]).toEqual([expect.stringMatching(SALT), expect.stringMatching(SALT)]);
    expect(a).not.toBe(b);
    expect(begin.body.data.extensions.largeBlob).toEqual({ read: true });

    // Stable: by alias, and after a sign-in, the same salts.
    const signedIn = await signIn(svc, app, first.credential, { userId });
    expect(signedIn.complete.status).toBe(200);
    const again = await beginSignin(app, { alias: 'salted@example.com' });
    expect(again.body.data.extensions.prf.evalByCredential).toEqual(byCredential);

    // A discoverable sign-in knows no passkey yet: no PRF (one shared salt would give other outputs), the rest still asked.
    const discoverable = await beginSignin(app, {});
    expect(discoverable.body.data.extensions).toEqual({ largeBlob: { read: true } });
  });

  it('gives the same user in another app other salts, and a name without passkeys stable decoy salts', async () => {
    const [appA, appB] = [await svc.createApp(), await svc.createApp()];
    const a = await registerPasskey(svc, appA, { userId: 'same-user' });
    const b = await registerPasskey(svc, appB, { userId: 'same-user' });
    await askPrfAtSignIn(appA);
    await askPrfAtSignIn(appB);
    const saltsOf = async (app: TestApp, userId: string) => (await beginSignin(app, { userId })).body.data.extensions.prf.evalByCredential as Record<string, { first: string }>;
    const [inA, inB] = [await saltsOf(appA, 'same-user'), await saltsOf(appB, 'same-user')];
    expect(Object.keys(inA)).toEqual([a.credential.idB64]);
    expect(Object.keys(inB)).toEqual([b.credential.idB64]);
    expect(inA[a.credential.idB64].first).not.toBe(inB[b.credential.idB64].first);

    // Nobody's name: salts shaped like real ones, for the decoy ids, the same each time.
    const decoy = await beginSignin(appA, { userId: 'nobody-here' });
    const decoySalts = decoy.body.data.extensions.prf.evalByCredential as Record<string, { first: string }>;
    expect(Object.keys(decoySalts)).toEqual(decoy.body.data.allowCredentials.map((c: { id: string }) => c.id));
    expect(Object.values(decoySalts).every((s) => SALT.test(s.first))).toBe(true);
    expect(await saltsOf(appA, 'nobody-here')).toEqual(decoySalts);
  });

  it('signs in when a client posts its PRF outputs, and keeps, echoes and logs none of them', async () => {
    const app = await svc.createApp();
    const userId = 'careless-client';
    const { credential } = await registerPasskey(svc, app, { userId, tokenBody: { extensions: { prf: true } }, authenticator: { largeBlob: true } });
    await askPrfAtSignIn(app, { prf: true, largeBlob: 'read' });
    logLines.length = 0;

    // The software authenticator answers like a browser, and the helper posts everything as the published client does.
    const { begin, complete, completeBody } = await signIn(svc, app, credential, { userId });
    const salt = begin.body.data.extensions.prf.evalByCredential[credential.idB64].first as string;
    const output = prfOutput(credential.prfSecret!, salt);
    const blob = credential.largeBlob!.toString('base64url');
    expect((completeBody.response as { clientExtensionResults: unknown }).clientExtensionResults).toEqual({ prf: { results: { first: output } }, largeBlob: { blob } });
    expect(complete.status).toBe(200);
    const verified = await verifyToken(svc, app, complete.body.token);
    expect(verified.status).toBe(200);

    await svc.services.events.flush(); // the buffered event log written too
    const seen = [JSON.stringify(complete.body), JSON.stringify(verified.body), JSON.stringify(await rawDump(svc.config.databaseUrl)), logLines.join('\n')];
    expect(logLines.length).toBeGreaterThan(0); // the access lines of this sign-in, at least
    for (const secret of [output, blob]) expect(seen.filter((text) => text.includes(secret))).toEqual([]);
  });
});

