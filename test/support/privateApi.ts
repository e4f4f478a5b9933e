import type { Response } from 'supertest';
import type { FeaturesPatch } from '../../src/server/services/apps/apps';
import { AuthenticatorPolicy } from '../../src/server/services/authenticators/authenticatorPolicy';
import { RegistrationService } from '../../src/server/services/ceremonies/registration';
import { CredentialRepository } from '../../src/server/store/repositories/credentials';
import { RedemptionRepository } from '../../src/server/store/repositories/redemptions';
import { RegistrationRepository } from '../../src/server/store/repositories/registrations';
import { TokenService, type TokenKind } from '../../src/server/services/tokens/tokenService';
import { TokenKeyRepository } from '../../src/server/store';
import { newVerifyPayload, type VerifyTokenPayload } from '../../src/server/services/tokens/verifyTokens';
import { ORIGIN, RPID } from './ceremonies';
import { managementClient } from './http';
import type { TestApp, TestService } from './testService';

/** Calls the private API of `app` with its ApiSecret. */
export function privateApi(svc: TestService, app: TestApp) {
  return {
    get: (path: string) => svc.http.get(path).set('ApiSecret', app.apiSecret),
    post: (path: string, body?: unknown) => {
      const request = svc.http.post(path).set('ApiSecret', app.apiSecret);
      return body === undefined ? request : request.send(body as object);
    },
  };
}

/** Calls the public (browser) API of `app` with its ApiKey. */
export function publicApi(svc: TestService, app: TestApp) {
  return { post: (path: string, body: unknown) => svc.http.post(path).set('ApiKey', app.apiKey).send(body as object) };
}

/** Changes an app's features through the management API. */
export async function setFeatures(svc: TestService, app: TestApp, patch: FeaturesPatch): Promise<void> {
  const res = await managementClient(svc).post(`/admin/apps/${app.appId}/features`, patch);
  if (res.status !== 204) throw new Error(`features ${res.status} ${JSON.stringify(res.body)}`);
}

/** `POST /register/token` with any body. */
export function requestRegisterToken(svc: TestService, app: TestApp, body: unknown) {
  return privateApi(svc, app).post('/register/token', body);
}

/** `/register/token` (which must succeed) then `/register/begin`; the begin answer is returned as is. */
export async function beginRegistration(
  svc: TestService,
  app: TestApp,
  tokenBody: Record<string, unknown>,
  where: { origin?: string; rpId?: string } = {},
): Promise<Response> {
  const tokenRes = await requestRegisterToken(svc, app, tokenBody);
  if (tokenRes.status !== 200) throw new Error(`register/token ${tokenRes.status} ${JSON.stringify(tokenRes.body)}`);
  return publicApi(svc, app).post('/register/begin', { token: tokenRes.body.token, RPID: where.rpId ?? RPID, Origin: where.origin ?? ORIGIN });
}

/** `GET /credentials/list` for one user (the bare array, or `{values}` with sdkCompatibleLists). */
export async function credentialsOf(svc: TestService, app: TestApp, userId: string) {
  const res = await privateApi(svc, app).get(`/credentials/list?userId=${encodeURIComponent(userId)}`);
  if (res.status !== 200) throw new Error(`credentials/list ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** `GET /alias/list` for one user. */
export async function aliasesOf(svc: TestService, app: TestApp, userId: string) {
  const res = await privateApi(svc, app).get(`/alias/list?userId=${encodeURIComponent(userId)}`);
  if (res.status !== 200) throw new Error(`alias/list ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/**
 * Signs a token with the service's own keys and a clock `offsetMs` away from now: a token issued
 * with a clock in the past, or whose `exp` is in the past, is already expired when it arrives.
 */
export function tokenServiceAt(svc: TestService, offsetMs: number): TokenService {
  return new TokenService({ tokenKeys: new TokenKeyRepository({ db: svc.services.store.db }), now: () => Date.now() + offsetMs });
}

/** A register token made by the service's own registration rules, as if `/register/token` had been called `agoMs` ago. */
export function registerTokenIssuedAgo(svc: TestService, app: TestApp, agoMs: number, input: { userId: string; username: string }): Promise<string> {
  const { store, challenges, aliases, features: settings, events, metadata, authenticators, webhookOutbox: outbox } = svc.services;
  const { db, sql, queries } = store;
  const then = () => Date.now() - agoMs;
  const policy = new AuthenticatorPolicy({ metadata, lists: authenticators, features: settings });
  return new RegistrationService({
    registrations: new RegistrationRepository({ queries, outbox }),
    credentials: new CredentialRepository({ sql, queries, outbox }),
    redemptions: new RedemptionRepository({ db, queries, outbox }),
    tokens: tokenServiceAt(svc, -agoMs),
    challenges,
    aliases,
    features: settings,
    events,
    now: then,
    authenticators: policy,
  }).createToken(app.appId, input);
}

/** A token of `kind` for `app` whose expiry lies `agoMs` in the past. */
export function expiredToken(svc: TestService, app: TestApp, kind: TokenKind, payload: Record<string, unknown>, agoMs: number): Promise<string> {
  return svc.services.tokens.issue(kind, { ...payload, app: app.appId, exp: Date.now() - agoMs });
}

/** Changes one character in the middle of `value` (never a padding bit at the end). */
export function flipCharAt(value: string, index: number): string {
  const c = value[index];
  return value.slice(0, index) + (c === 'A' ? 'B' : 'A') + value.slice(index + 1);
}

/** Standard base64 of a base64url string: the form .NET byte[] fields use. */
export const toStandardBase64 = (base64url: string) => Buffer.from(base64url, 'base64url').toString('base64');

export const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export const CHROME_ON_MAC = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';
export const FIREFOX_ON_WINDOWS = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Firefox/128.0';

/** A verify-token payload for `appId` with only its type and user filled in, issued at `now`. */
export function bareVerifyPayload(appId: string, type: VerifyTokenPayload['type'], userId: string, now = Date.now()): VerifyTokenPayload {
  return newVerifyPayload(
    {
      app: appId,
      type,
      ttlSeconds: 120,
      userId,
      rpId: null,
      origin: null,
      device: null,
      country: null,
      nickname: null,
      credentialId: null,
      purpose: 'sign-in',
      backupEligible: null,
      backupState: null,
    },
    now,
  );
}
