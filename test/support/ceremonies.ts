import type { TestApp, TestService } from './testService';
import { createCredential, getAssertion, type AssertOptions, type CreateOptions, type SoftCredential } from './softwareAuthenticator';

export const ORIGIN = 'https://app.example.com';
export const RPID = 'app.example.com';

export interface RegisterOptions {
  userId?: string;
  username?: string;
  aliases?: string[];
  aliasHashing?: boolean;
  userVerification?: string;
  discoverable?: boolean;
  attestation?: string;
  authenticator?: Partial<CreateOptions>;
  origin?: string;
  rpId?: string;
  nickname?: string;
  /** Extra fields of the `/register/token` body (authenticatorType, expiresAt, hints, ...). */
  tokenBody?: Record<string, unknown>;
  /** Request headers of `/register/complete` (User-Agent, CF-IPCountry, ...). */
  headers?: Record<string, string>;
}

/** Anything with a supertest `http` against the service: an in-process TestService or a service process. */
export type ServiceHttp = Pick<TestService, 'http'>;

/** `/register/token` -> `/register/begin` -> software authenticator -> `/register/complete`. */
export async function registerPasskey(svc: ServiceHttp, app: TestApp, options: RegisterOptions = {}) {
  const userId = options.userId ?? `user-${Math.random().toString(36).slice(2)}`;
  const tokenRes = await svc.http
    .post('/register/token')
    .set('ApiSecret', app.apiSecret)
    .send({
      userId,
      username: options.username ?? `${userId}@example.com`,
      aliases: options.aliases,
      aliasHashing: options.aliasHashing,
      userVerification: options.userVerification,
      discoverable: options.discoverable,
      attestation: options.attestation,
      ...options.tokenBody,
    });
  if (tokenRes.status !== 200) throw new Error(`register/token ${tokenRes.status} ${JSON.stringify(tokenRes.body)}`);
  return { userId, ...(await finishRegistration(svc, app, tokenRes.body.token, options)) };
}

/** What the browser does with a registration token: `/register/begin` -> software authenticator -> `/register/complete`. */
export async function finishRegistration(svc: ServiceHttp, app: Pick<TestApp, 'apiKey'>, registerToken: string, options: RegisterOptions = {}) {
  const origin = options.origin ?? ORIGIN;
  const rpId = options.rpId ?? RPID;
  const begin = await svc.http.post('/register/begin').set('ApiKey', app.apiKey).send({ token: registerToken, RPID: rpId, Origin: origin });
  if (begin.status !== 200) throw new Error(`register/begin ${begin.status} ${JSON.stringify(begin.body)}`);
  const { credential, response } = createCredential({ challenge: begin.body.data.challenge, rpId, origin, userHandle: begin.body.data.user.id, extensionInputs: begin.body.data.extensions, ...options.authenticator });
  const completeBody = { session: begin.body.session, response, nickname: options.nickname, RPID: rpId, Origin: origin };
  const complete = await svc.http
    .post('/register/complete')
    .set('ApiKey', app.apiKey)
    .set(options.headers ?? {})
    .send(completeBody);
  return { credential, begin, complete, completeBody, registerToken };
}

export interface SigninOptions {
  userId?: string;
  alias?: string;
  purpose?: string;
  origin?: string;
  rpId?: string;
  assertion?: Partial<AssertOptions>;
  /** Request headers of `/signin/complete` (User-Agent, CF-IPCountry, ...). */
  headers?: Record<string, string>;
}

/** `/signin/begin` -> software authenticator -> `/signin/complete`; returns both responses. */
export async function signIn(svc: ServiceHttp, app: Pick<TestApp, 'apiKey'>, credential: SoftCredential, options: SigninOptions = {}) {
  const origin = options.origin ?? ORIGIN;
  const rpId = options.rpId ?? RPID;
  const begin = await svc.http
    .post('/signin/begin')
    .set('ApiKey', app.apiKey)
    .send({ userId: options.userId, alias: options.alias, purpose: options.purpose, RPID: rpId, Origin: origin });
  if (begin.status !== 200) throw new Error(`signin/begin ${begin.status} ${JSON.stringify(begin.body)}`);
  const response = getAssertion(credential, { challenge: begin.body.data.challenge, rpId, origin, extensionInputs: begin.body.data.extensions, ...options.assertion });
  const completeBody = { session: begin.body.session, response, RPID: rpId, Origin: origin };
  const complete = await svc.http
    .post('/signin/complete')
    .set('ApiKey', app.apiKey)
    .set(options.headers ?? {})
    .send(completeBody);
  return { begin, complete, completeBody };
}

export async function verifyToken(svc: ServiceHttp, app: Pick<TestApp, 'apiSecret'>, token: string) {
  return svc.http.post('/signin/verify').set('ApiSecret', app.apiSecret).send({ token });
}
