import type { TokenEnvelope, TokenKind } from '../../src/server/services/tokens/tokenService';
import { ORIGIN, RPID, registerPasskey, verifyToken } from '../support/ceremonies';
import { expectProblem, useTestService } from '../support/problems';
import { credentialsOf, privateApi, publicApi } from '../support/privateApi';
import { createCredential, getAssertion } from '../support/softwareAuthenticator';
import { providers, type TestApp, type TestService } from '../support/testService';

/**
 * Tokens and sessions correctly signed with the app's own key whose payload is malformed (what a
 * bug or a leaked key would make): each is a 4xx problem, never a 5xx, and spends nothing.
 */

type Json = unknown;

/** The payload of a token, decoded (tokens are signed, not encrypted). */
const payloadOf = (token: string): Record<string, Json> => JSON.parse(Buffer.from(token.slice(token.indexOf('_') + 1).split('.')[0], 'base64url').toString('utf8'));

/**
 * A token correctly signed with the app's own key whose payload is exactly `json`: the envelope
 * fields only pick the signing key, and `toJSON` decides what is serialised and signed.
 */
function mint(svc: TestService, app: TestApp, kind: TokenKind, json: Json): Promise<string> {
  return svc.services.tokens.issue(kind, { app: app.appId, exp: Date.now() + 60_000, toJSON: () => json } as TokenEnvelope);
}

/** `payload` with `field` set to `value`, or removed when `value` is undefined. */
function withField(payload: Record<string, Json>, field: string, value: Json): Record<string, Json> {
  const copy = { ...payload };
  if (value === undefined) delete copy[field];
  else copy[field] = value;
  return copy;
}

describe.each(providers())('malformed tokens on %s', (provider) => {
  const service = useTestService(provider);

  describe('tokens with a valid MAC but a malformed payload', () => {
    it.each([
      ['JSON null', null],
      ['a number', 42],
      ['an array', []],
      ['an object without app', { exp: Date.now() + 60_000 }],
      ['an object without exp', { app: '@app' }],
      ['an exp that is a string', { app: '@app', exp: 'tomorrow' }],
      ['an exp beyond any date', { app: '@app', exp: 1e308 }],
    ])('a verify, register or session token whose payload is %s is a 400 invalid_token', async (_label, json) => {
      const svc = service();
      const app = await svc.createApp();
      const payload = json !== null && typeof json === 'object' && 'app' in json ? { ...json, app: app.appId } : json;
      expectProblem(await verifyToken(svc, app, await mint(svc, app, 'verify', payload)), 400, 'invalid_token');
      expectProblem(await publicApi(svc, app).post('/register/begin', { token: await mint(svc, app, 'register', payload), Origin: ORIGIN }), 400, 'invalid_token');
      const session = await mint(svc, app, 'session', payload);
      const fake = { id: 'AAAA', rawId: 'AAAA', type: 'public-key', response: { authenticatorData: 'AAAA', clientDataJSON: 'AAAA', signature: 'AAAA' } };
      expectProblem(await publicApi(svc, app).post('/signin/complete', { session, Origin: ORIGIN, response: fake }), 400, 'invalid_token');
    });

    /** A real sign-in session, re-signed with one field changed, answered by a real assertion. */
    async function completeSigninWith(svc: TestService, app: TestApp, field: string, value: Json) {
      const { credential } = await registerPasskey(svc, app, { userId: 'u1' });
      const begin = await publicApi(svc, app).post('/signin/begin', { userId: 'u1', Origin: ORIGIN, RPID });
      const session = await mint(svc, app, 'session', withField(payloadOf(begin.body.session), field, value));
      const response = getAssertion(credential, { challenge: begin.body.data.challenge, rpId: RPID, origin: ORIGIN });
      return publicApi(svc, app).post('/signin/complete', { session, Origin: ORIGIN, RPID, response });
    }

    it.each([
      ['whose allow list is not an array', 'allow', 'x'],
      ['whose allow list is null', 'allow', null],
      ['without an allow list', 'allow', undefined],
      ['whose challenge is a number', 'challenge', 42],
      ['without a challenge', 'challenge', undefined],
      ['whose challenge holds a NUL', 'challenge', 'a\u0000b'],
      ['without its ceremony field', 'ceremony', undefined],
      ['whose ceremony is unknown', 'ceremony', 'teleport'],
      ['whose ttlSeconds is not a number', 'ttlSeconds', 'soon'],
      ['whose ttlSeconds is 1e308', 'ttlSeconds', 1e308],
      ['whose rpId is an object', 'rpId', { a: 1 }],
      ['whose userVerification is unknown', 'userVerification', 'maybe'],
      // What versions before sessions carried their challenge issued: no single-use id to redeem.
      ['without a sid', 'sid', undefined],
    ])('a sign-in session %s is a 400 invalid_session, not a server error', async (_label, field, value) => {
      const svc = service();
      const app = await svc.createApp();
      expectProblem(await completeSigninWith(svc, app, field, value), 400, 'invalid_session');
    });

    /** A real registration session, re-signed with one field changed, answered by a real credential. */
    async function completeRegistrationWith(svc: TestService, app: TestApp, field: string, value: Json) {
      const tokenRes = await privateApi(svc, app).post('/register/token', { userId: 'u1', username: 'u1', aliases: ['u1@example.com'] });
      const begin = await publicApi(svc, app).post('/register/begin', { token: tokenRes.body.token, Origin: ORIGIN, RPID });
      const session = await mint(svc, app, 'session', withField(payloadOf(begin.body.session), field, value));
      const { response } = createCredential({ challenge: begin.body.data.challenge, rpId: RPID, origin: ORIGIN, userHandle: begin.body.data.user.id });
      return publicApi(svc, app).post('/register/complete', { session, Origin: ORIGIN, RPID, response });
    }

    it.each([
      ['whose aliases are not an array', 'aliases', 'u1@example.com'],
      ['without aliases', 'aliases', undefined],
      ['whose aliases hold a NUL', 'aliases', ['a\u0000b']],
      ['whose userId is a number', 'userId', 42],
      ['without a userId', 'userId', undefined],
      ['whose userId holds a NUL', 'userId', 'u\u00001'],
      ['whose challenge is an array', 'challenge', ['x']],
      ['without an rpId', 'rpId', undefined],
      ['whose aliasHashing is a string', 'aliasHashing', 'yes'],
      ['without a sid', 'sid', undefined],
    ])('a registration session %s is a 400 invalid_session, not a server error', async (_label, field, value) => {
      const svc = service();
      const app = await svc.createApp();
      expectProblem(await completeRegistrationWith(svc, app, field, value), 400, 'invalid_session');
      expect(await credentialsOf(svc, app, 'u1')).toEqual([]);
    });

    it('a malformed session is refused before its challenge is spent: the genuine session still completes', async () => {
      const svc = service();
      const app = await svc.createApp();
      const { credential } = await registerPasskey(svc, app, { userId: 'u1' });
      const begin = await publicApi(svc, app).post('/signin/begin', { Origin: ORIGIN, RPID });
      const broken = await mint(svc, app, 'session', withField(payloadOf(begin.body.session), 'allow', 7));
      const response = getAssertion(credential, { challenge: begin.body.data.challenge, rpId: RPID, origin: ORIGIN });
      expectProblem(await publicApi(svc, app).post('/signin/complete', { session: broken, Origin: ORIGIN, RPID, response }), 400, 'invalid_session');
      expect((await publicApi(svc, app).post('/signin/complete', { session: begin.body.session, Origin: ORIGIN, RPID, response })).status).toBe(200);
    });

    it.each([
      ['whose userId is a number', 'userId', 42],
      ['whose userId is an object', 'userId', { id: 'u1' }],
      ['whose userId holds a NUL', 'userId', 'u\u00001'],
      ['without aliases', 'aliases', undefined],
      ['whose aliases are a string', 'aliases', 'a@example.com'],
      ['whose displayName is an object', 'displayName', { name: 'x' }],
      ['whose hints are not an array', 'hints', 'hybrid'],
      ['whose attestation is unknown', 'attestation', 'full'],
    ])('a register token %s is a 400 invalid_token, not a server error', async (_label, field, value) => {
      const svc = service();
      const app = await svc.createApp();
      const tokenRes = await privateApi(svc, app).post('/register/token', { userId: 'u1', username: 'u1' });
      const token = await mint(svc, app, 'register', withField(payloadOf(tokenRes.body.token), field, value));
      expectProblem(await publicApi(svc, app).post('/register/begin', { token, Origin: ORIGIN, RPID }), 400, 'invalid_token');
    });

    it('a register token with an empty userId is still a 400 missing_userid', async () => {
      const svc = service();
      const app = await svc.createApp();
      const tokenRes = await privateApi(svc, app).post('/register/token', { userId: 'u1', username: 'u1' });
      const token = await mint(svc, app, 'register', withField(payloadOf(tokenRes.body.token), 'userId', ''));
      expectProblem(await publicApi(svc, app).post('/register/begin', { token, Origin: ORIGIN, RPID }), 400, 'missing_userid');
    });

    it.each([
      ['without a tokenId', 'tokenId', undefined],
      ['whose tokenId is a number', 'tokenId', 42],
      ['whose tokenId is not a UUID', 'tokenId', 'x'.repeat(3000)],
      ['whose iat is a string', 'iat', 'now'],
      ['whose iat is beyond any date', 'iat', 1e308],
      ['whose type is unknown', 'type', 'teleport'],
      ['whose credentialId is a number', 'credentialId', 42],
      ['without a userId', 'userId', undefined],
    ])('a verify token %s is a 400 invalid_token, not a server error', async (_label, field, value) => {
      const svc = service();
      const app = await svc.createApp();
      const generated = await privateApi(svc, app).post('/signin/generate-token', { userId: 'u1' });
      const token = await mint(svc, app, 'verify', withField(payloadOf(generated.body.token), field, value));
      expectProblem(await verifyToken(svc, app, token), 400, 'invalid_token');
      // The genuine token is untouched by the attempt.
      expect((await verifyToken(svc, app, generated.body.token)).status).toBe(200);
    });
  });
});
