import type { Request } from 'express';
import { problemBody } from '../shared/problem';
import type { VerifyTokenType } from '../shared/tokens';
import type { VerifiedUser } from './apiTypes';
import type { PasswordlessClient } from './client';
import { PasswordlessApiError, PasswordlessUnreachableError } from './errors';
import { PasswordlessStrategy, type AccountLookup, type PasswordlessFailure, type PasswordlessStrategyOptions, type PasswordlessSuccessInfo } from './strategy';

/**
 * The strategy on a stub client, run the way passport runs a strategy (passport-local's tests do
 * the same): an object made from it with the actions success, fail and error, then authenticate(req).
 */
type Outcome =
  | { action: 'success'; user: unknown; info: PasswordlessSuccessInfo }
  | { action: 'fail'; failure: PasswordlessFailure }
  | { action: 'error'; error: unknown };

function run(strategy: PasswordlessStrategy, req: Request): Promise<Outcome> {
  return new Promise((resolve) => {
    const attempt = Object.create(strategy) as {
      authenticate(req: Request, options: object): void;
      success(user: unknown, info: PasswordlessSuccessInfo): void;
      fail(failure: PasswordlessFailure): void;
      error(error: unknown): void;
      redirect(): void;
      pass(): void;
    };
    attempt.success = (user, info) => resolve({ action: 'success', user, info });
    attempt.fail = (failure) => resolve({ action: 'fail', failure });
    attempt.error = (error) => resolve({ action: 'error', error });
    attempt.redirect = () => resolve({ action: 'error', error: new Error('redirect is not an outcome of this strategy') });
    attempt.pass = () => resolve({ action: 'error', error: new Error('pass is not an outcome of this strategy') });
    attempt.authenticate(req, {});
  });
}

const TOKEN = 'verify_eyJhcHAiOiJhIn0.1.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';

function verified(type: VerifyTokenType, overrides: Partial<VerifiedUser> = {}): VerifiedUser {
  return {
    success: true,
    userId: 'user-1',
    timestamp: '2026-01-01T00:00:00Z',
    rpid: 'example.com',
    rpId: 'example.com',
    origin: 'https://example.com',
    device: 'Chrome, Mac OS 10',
    country: '',
    nickname: null,
    credentialId: 'AQID',
    expiresAt: '2026-01-01T00:02:00Z',
    tokenId: '019b7a2e-0000-7000-8000-000000000000',
    type,
    purpose: 'sign-in',
    backupEligible: false,
    backupState: false,
    ...overrides,
  };
}

/** A client whose verifyToken answers what `answer` resolves or rejects with, recording the tokens it was given. */
function stubClient(answer: () => Promise<VerifiedUser>) {
  const tokens: string[] = [];
  const client = {
    verifyToken: (token: string) => {
      tokens.push(token);
      return answer();
    },
  } as unknown as PasswordlessClient;
  return { client, tokens };
}

const users: Record<string, { id: string; name: string }> = { 'user-1': { id: 'user-1', name: 'Ada' } };
const lookup: AccountLookup<{ id: string; name: string }> = async (user) => users[user.userId];

function strategyOn(answer: () => Promise<VerifiedUser>, options: Partial<PasswordlessStrategyOptions> = {}, find = lookup) {
  const { client, tokens } = stubClient(answer);
  return { strategy: new PasswordlessStrategy({ client, expectedOrigins: ['https://example.com'], ...options }, find), tokens };
}

/** A request to https://example.com (the origin the stub tokens were made on), as Express would read it. */
const request = (body: unknown, host = 'example.com') => ({ body, protocol: 'https', get: (name: string) => (name.toLowerCase() === 'host' ? host : undefined) }) as unknown as Request;

/** The problem a failed outcome carries (fails the test for any other outcome). */
function problemOf(outcome: Outcome) {
  if (outcome.action !== 'fail') throw new Error(`expected fail, got ${outcome.action}: ${JSON.stringify(outcome)}`);
  return outcome.failure.problem;
}

describe('PasswordlessStrategy', () => {
  it('is known to passport by its sign-in scheme', () => {
    expect(strategyOn(async () => verified('passkey_signin')).strategy.name).toBe('Identity.Application');
    expect(strategyOn(async () => verified('passkey_signin'), { name: 'Cookies' }).strategy.name).toBe('Cookies');
  });

  it('succeeds with the looked-up user and what the service verified', async () => {
    const answer = verified('passkey_signin');
    const { strategy, tokens } = strategyOn(async () => answer);
    expect(await run(strategy, request({ token: TOKEN }))).toEqual({ action: 'success', user: users['user-1'], info: { verified: answer } });
    expect(tokens).toEqual([TOKEN]);
  });

  it('hands the lookup what the service verified and the request', async () => {
    const seen: [VerifiedUser, Request][] = [];
    const req = request({ token: TOKEN });
    const { strategy } = strategyOn(async () => verified('passkey_signin'), {}, async (user, r) => {
      seen.push([user, r]);
      return users[user.userId];
    });
    await run(strategy, req);
    expect(seen).toHaveLength(1);
    expect(seen[0][0].userId).toBe('user-1');
    expect(seen[0][1]).toBe(req);
  });

  it.each([
    ['no body', undefined],
    ['no token', {}],
    ['an empty token', { token: '' }],
    ['a blank token', { token: '   ' }],
    ['a token that is not a string', { token: ['verify_x'] }],
  ])('fails with missing_token (400) for %s, without asking the service', async (_label, body) => {
    const { strategy, tokens } = strategyOn(async () => verified('passkey_signin'));
    expect(problemOf(await run(strategy, request(body)))).toMatchObject({ errorCode: 'missing_token', status: 400 });
    expect(tokens).toEqual([]);
  });

  it.each(['register_abc', 'session_abc', 'abc', ' verify_abc'])('fails with invalid_token (400) for %p, without asking the service', async (token) => {
    const { strategy, tokens } = strategyOn(async () => verified('passkey_signin'));
    expect(problemOf(await run(strategy, request({ token })))).toMatchObject({ errorCode: 'invalid_token', status: 400 });
    expect(tokens).toEqual([]);
  });

  it.each([
    ['expired_token', problemBody('expired_token', 403, 'The token expired 10 seconds ago.')],
    ['invalid_token', problemBody('invalid_token', 400, 'The token you supplied was not valid.', 'It was not issued for this application.', { traceId: 't-1' })],
    ['token_already_used', problemBody('token_already_used', 410, 'The token was already used.')],
    ['too_many_requests', problemBody('too_many_requests', 429, 'Too many requests.')],
  ])('fails with the problem of a token the service refuses (%s), status and all, as the service wrote it', async (_code, problem) => {
    const { strategy } = strategyOn(async () => Promise.reject(new PasswordlessApiError(problem)));
    expect(problemOf(await run(strategy, request({ token: TOKEN })))).toEqual(problem);
  });

  it('fails with sign_in_failed (401) when the service answers success: false', async () => {
    const { strategy } = strategyOn(async () => verified('passkey_signin', { success: false }));
    expect(problemOf(await run(strategy, request({ token: TOKEN })))).toMatchObject({ errorCode: 'sign_in_failed', status: 401 });
  });

  it.each<[string, VerifyTokenType, Partial<PasswordlessStrategyOptions>]>([
    ['a generated token', 'generated_signin', {}],
    ['a magic-link token', 'magic_link', {}],
    ['a registration result where sign-in after registering is off', 'passkey_register', { signInAfterRegister: false }],
  ])('fails with token_not_accepted (401) for %s, naming the type', async (_label, type, options) => {
    const { strategy } = strategyOn(async () => verified(type), options);
    expect(problemOf(await run(strategy, request({ token: TOKEN })))).toMatchObject({ errorCode: 'token_not_accepted', status: 401, detail: expect.stringContaining(type) });
  });

  it.each<[string, VerifyTokenType, Partial<PasswordlessStrategyOptions>]>([
    ['a registration result (sign-in after registering is on by default)', 'passkey_register', {}],
    ['a magic-link token it was told to accept too', 'magic_link', { alsoAccept: ['magic_link'] }],
    ['a passkey sign-in, whatever else is configured', 'passkey_signin', { signInAfterRegister: false }],
  ])('succeeds for %s', async (_label, type, options) => {
    const { strategy } = strategyOn(async () => verified(type), options);
    expect(await run(strategy, request({ token: TOKEN }))).toMatchObject({ action: 'success', user: users['user-1'] });
  });

  it.each([null, undefined, false] as const)('fails with unknown_user (401) when the lookup answers %p', async (none) => {
    const { strategy } = strategyOn(async () => verified('passkey_signin'), {}, async () => none);
    expect(problemOf(await run(strategy, request({ token: TOKEN })))).toMatchObject({ errorCode: 'unknown_user', status: 401 });
  });

  it('errors when the service refuses our ApiSecret (401): the site is misconfigured, not the caller wrong', async () => {
    const refused = new PasswordlessApiError(problemBody('invalid_api_secret', 401, 'A valid ApiSecret is required.'));
    const { strategy } = strategyOn(async () => Promise.reject(refused));
    expect(await run(strategy, request({ token: TOKEN }))).toEqual({ action: 'error', error: refused });
  });

  it('errors when the service fails (5xx)', async () => {
    const failed = new PasswordlessApiError(problemBody('internal_error', 500, 'The request could not be completed.'));
    const { strategy } = strategyOn(async () => Promise.reject(failed));
    expect(await run(strategy, request({ token: TOKEN }))).toEqual({ action: 'error', error: failed });
  });

  it.each([
    ['unreachable', new PasswordlessUnreachableError('service_unreachable', 'The passwordless service at http://127.0.0.1:1 could not be reached (ECONNREFUSED).')],
    ['too slow', new PasswordlessUnreachableError('service_timeout', 'The passwordless service at http://127.0.0.1:1 did not answer in time (UND_ERR_HEADERS_TIMEOUT).')],
  ])('errors when the service is %s', async (_label, unreachable) => {
    const { strategy } = strategyOn(async () => Promise.reject(unreachable));
    expect(await run(strategy, request({ token: TOKEN }))).toEqual({ action: 'error', error: unreachable });
  });

  it('errors when the lookup throws', async () => {
    const broken = new Error('the user database is down');
    const { strategy } = strategyOn(async () => verified('passkey_signin'), {}, async () => {
      throw broken;
    });
    expect(await run(strategy, request({ token: TOKEN }))).toEqual({ action: 'error', error: broken });
  });

  it('errors when the service answers something that is not its own problem (a wrong ApiUrl answering a 404 page)', async () => {
    const notTheService = new PasswordlessApiError(problemBody('unexpected_response', 404, 'The service answered 404 without problem details.'));
    const { strategy } = strategyOn(async () => Promise.reject(notTheService));
    expect(await run(strategy, request({ token: TOKEN }))).toEqual({ action: 'error', error: notTheService });
  });

  it('fails with the problem a lookup throws, e.g. a sign-up that cannot complete', async () => {
    const { HostProblem } = await import('./errorCodes');
    const { strategy } = strategyOn(async () => verified('passkey_register'), {}, async () => {
      throw new HostProblem('user_exists');
    });
    expect(problemOf(await run(strategy, request({ token: TOKEN })))).toMatchObject({ errorCode: 'user_exists', status: 409 });
  });

  describe('origin and purpose', () => {
    it.each<[string, Partial<VerifiedUser>, Partial<PasswordlessStrategyOptions>, string]>([
      ['made on a sibling origin under the same RP ID', { origin: 'https://usercontent.example.com' }, {}, 'origin'],
      ['made on no origin at all', { origin: null }, {}, 'origin'],
      ['made on the request origin where other origins are configured', {}, { expectedOrigins: () => ['https://app.example.com'] }, 'origin'],
      ['for the step-up purpose', { purpose: 'step-up' }, {}, 'purpose'],
      ['for a custom purpose', { purpose: 'weak-uv' }, {}, 'purpose'],
    ])('refuses a sign-in token %s with token_not_accepted, and says so', async (_label, overrides, options, reason) => {
      const refusals: unknown[] = [];
      const { strategy } = strategyOn(async () => verified('passkey_signin', overrides), { ...options, onRefused: (refusal) => refusals.push(refusal) });
      const problem = problemOf(await run(strategy, request({ token: TOKEN })));
      expect(problem).toMatchObject({ errorCode: 'token_not_accepted', status: 401 });
      expect(refusals).toEqual([expect.objectContaining({ reason, type: 'passkey_signin', origin: overrides.origin === undefined ? 'https://example.com' : overrides.origin })]);
    });

    it('accepts the purposes it is told to, on the configured origins', async () => {
      const { strategy } = strategyOn(async () => verified('passkey_signin', { purpose: 'step-up', origin: 'https://shop.example.org' }), {
        purposes: ['sign-in', 'step-up'],
        expectedOrigins: ['https://example.com', 'https://shop.example.org'],
      });
      expect(await run(strategy, request({ token: TOKEN }))).toMatchObject({ action: 'success' });
    });

    it("never takes an origin from the request's Host header: a sibling's token posted with the sibling's Host is refused", async () => {
      const { strategy } = strategyOn(async () => verified('passkey_signin', { origin: 'https://usercontent.example.com' }));
      expect(problemOf(await run(strategy, request({ token: TOKEN }, 'usercontent.example.com')))).toMatchObject({ errorCode: 'token_not_accepted' });
    });

    it.each([
      ['no origins', {}],
      ['an empty list', { expectedOrigins: [] }],
    ])('cannot be made with %s: the host must configure them', (_label, options) => {
      const { client } = stubClient(async () => verified('passkey_signin'));
      expect(() => new PasswordlessStrategy({ client, ...options } as PasswordlessStrategyOptions, lookup)).toThrow(/expectedOrigins/);
    });

    it('does not ask for an origin of tokens no browser ceremony made (magic links)', async () => {
      const { strategy } = strategyOn(async () => verified('magic_link', { origin: null, purpose: null }), { alsoAccept: ['magic_link'] });
      expect(await run(strategy, request({ token: TOKEN }))).toMatchObject({ action: 'success' });
    });
  });
});
