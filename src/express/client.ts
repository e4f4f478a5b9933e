import { Agent, request, type Dispatcher } from 'undici';
import { parseKey } from '../shared/apiKeys';
import { PROBLEM_CONTENT_TYPE, isProblemBody, problemBody } from '../shared/problem';
import { formatTimeSpan } from '../shared/timeSpan';
import type {
  ActiveUsersReportDay,
  AliasPointer,
  AppFeaturesInput,
  AuthenticatorListEntry,
  AuthConfiguration,
  AuthConfigurationEdit,
  AuthConfigurationInput,
  Credential,
  CredentialsReportDay,
  EventLogPage,
  GenerateTokenOptions,
  MagicLinkOptions,
  RegisterOptions,
  ReportPeriod,
  UserSummary,
  VerifiedUser,
} from './apiTypes';
import { PasswordlessApiError, PasswordlessUnreachableError } from './errors';
import { startServiceCall } from './telemetry/serviceCallTelemetry';

export const DEFAULT_API_URL = 'http://localhost:7001';

export interface PasswordlessClientOptions {
  /** `<appId>:secret:<32 hex>`. */
  apiSecret: string;
  /** Where the service runs; a path (e.g. `https://host/api`) is kept. Default `http://localhost:7001`. */
  apiUrl?: string;
  /** Time to open a connection. Default 5 s. */
  connectTimeoutMs?: number;
  /** Time to the answer's headers, and the longest pause within its body. Default 10 s. */
  requestTimeoutMs?: number;
  /** Another undici dispatcher (a proxy, a mock in a host's own tests); the client then owns no pool. */
  dispatcher?: Dispatcher;
}

type Method = 'GET' | 'POST';

/** Errors undici raises when the connection, not the service, failed. */
const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);
/** A kept-alive connection the server closed just as it was reused: safe to retry an idempotent call once. */
const STALE_CONNECTION_CODES = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET']);

const VERSION = 'passwordless-selfhost-express/1';

function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** Lists come as a bare array, or as `{values}` for apps with `sdkCompatibleLists`: either reads the same. */
function listOf<T>(body: unknown): T[] {
  if (Array.isArray(body)) return body as T[];
  const values = (body as { values?: unknown } | null)?.values;
  return Array.isArray(values) ? (values as T[]) : [];
}

/** The service takes a configuration's lifetime as `hh:mm:ss`; whole seconds are written that way. */
function withTimeSpan<T extends { timeToLive?: string | number }>(input: T): T {
  return typeof input.timeToLive === 'number' ? { ...input, timeToLive: formatTimeSpan(input.timeToLive) } : input;
}

/**
 * A typed client of the service's private API (`ApiSecret`), on one pooled undici Agent. Errors
 * are thrown, never returned as `null`: a {@link PasswordlessApiError} when the service answered
 * with an error (its problem details intact), a {@link PasswordlessUnreachableError} when it did not
 * answer. Only idempotent calls (GET) are retried, once, when a kept-alive connection was stale.
 */
export class PasswordlessClient {
  readonly apiUrl: string;
  readonly appId: string;
  readonly #apiSecret: string;
  readonly #dispatcher: Dispatcher;
  readonly #ownsDispatcher: boolean;

  constructor(options: PasswordlessClientOptions) {
    const parsed = typeof options.apiSecret === 'string' ? parseKey(options.apiSecret) : undefined;
    if (!parsed || parsed.kind !== 'secret') throw new TypeError("apiSecret must be an ApiSecret: '<appId>:secret:<32 hex characters>'.");
    this.appId = parsed.appId;
    this.#apiSecret = options.apiSecret;
    this.apiUrl = (options.apiUrl ?? DEFAULT_API_URL).replace(/\/+$/, '');
    this.#ownsDispatcher = options.dispatcher === undefined;
    const requestTimeout = options.requestTimeoutMs ?? 10_000;
    this.#dispatcher =
      options.dispatcher ??
      new Agent({ connect: { timeout: options.connectTimeoutMs ?? 5_000 }, headersTimeout: requestTimeout, bodyTimeout: requestTimeout, keepAliveTimeout: 4_000 });
  }

  // --- registration and sign-in -------------------------------------------------------------

  /** A `register_` token for the browser client's `register()`. */
  async createRegisterToken(options: RegisterOptions): Promise<{ token: string }> {
    const { expiresAt, ...rest } = options;
    return this.#call('POST', 'register/token', { ...rest, ...(expiresAt === undefined ? {} : { expiresAt: new Date(expiresAt).toISOString() }) });
  }

  /** What a `verify_` token proves. Passkey and generated tokens verify once; a second call is refused. */
  async verifyToken(token: string): Promise<VerifiedUser> {
    return this.#call('POST', 'signin/verify', { token });
  }

  /** A `verify_` token made without a passkey (for recovery flows); off unless the app allows it. */
  async generateAuthenticationToken(options: GenerateTokenOptions): Promise<{ token: string }> {
    return this.#call('POST', 'signin/generate-token', options);
  }

  async sendMagicLink(options: MagicLinkOptions): Promise<void> {
    await this.#call('POST', 'magic-links/send', options);
  }

  // --- aliases, credentials, users -----------------------------------------------------------

  /** Replaces the user's whole alias set. */
  async setAliases(options: { userId: string; aliases: string[]; hashing?: boolean }): Promise<void> {
    await this.#call('POST', 'alias', options);
  }

  async listAliases(userId: string): Promise<AliasPointer[]> {
    return listOf(await this.#call('GET', 'alias/list', undefined, { userId }));
  }

  async listCredentials(userId: string): Promise<Credential[]> {
    return listOf(await this.#call('GET', 'credentials/list', undefined, { userId }));
  }

  /** Deleting an id the app does not have is not an error. */
  async deleteCredential(credentialId: string): Promise<void> {
    await this.#call('POST', 'credentials/delete', { credentialId });
  }

  /** Renames a passkey (its nickname); an id the app does not have is a 404 (an extension of this service). */
  async updateCredential(options: { credentialId: string; nickname: string }): Promise<void> {
    await this.#call('POST', 'credentials/update', options);
  }

  async listUsers(): Promise<UserSummary[]> {
    return listOf(await this.#call('GET', 'users/list'));
  }

  async getUsersCount(): Promise<number> {
    return (await this.#call<{ count: number }>('GET', 'users/count')).count;
  }

  /** Removes every passkey and alias of the user. */
  async deleteUser(userId: string): Promise<void> {
    await this.#call('POST', 'users/delete', { userId });
  }

  // --- authentication configurations, events, features ---------------------------------------

  async listAuthConfigurations(purpose?: string): Promise<AuthConfiguration[]> {
    const body = await this.#call<{ configurations: AuthConfiguration[] }>('GET', 'auth-configs/list', undefined, purpose === undefined ? {} : { purpose });
    return body.configurations;
  }

  async addAuthConfiguration(input: AuthConfigurationInput): Promise<void> {
    await this.#call('POST', 'auth-configs/add', withTimeSpan(input));
  }

  async editAuthConfiguration(input: AuthConfigurationEdit): Promise<void> {
    await this.#call('POST', 'auth-configs', withTimeSpan(input));
  }

  async deleteAuthConfiguration(input: { purpose: string; performedBy: string }): Promise<void> {
    await this.#call('POST', 'auth-configs/delete', input);
  }

  async getEventLog(options: { pageNumber: number; numberOfResults?: number }): Promise<EventLogPage> {
    const query: Record<string, string> = { pageNumber: String(options.pageNumber) };
    if (options.numberOfResults !== undefined) query.numberOfResults = String(options.numberOfResults);
    return this.#call('GET', 'events', undefined, query);
  }

  async setAppFeatures(input: AppFeaturesInput): Promise<void> {
    await this.#call('POST', 'apps/features', input);
  }

  // --- authenticator lists, reports ------------------------------------------------------------

  /** The allow list (`true`) or block list (`false`); apps without attestation get a 403. */
  async listAuthenticators(isAllowed: boolean): Promise<AuthenticatorListEntry[]> {
    return this.#call('GET', 'authenticators/list', undefined, { isAllowed: String(isAllowed) });
  }

  /** Puts AAGUIDs the service's FIDO metadata knows on the allow or block list. */
  async addAuthenticators(aaGuids: string[], isAllowed: boolean): Promise<void> {
    await this.#call('POST', 'authenticators/add', { aaGuids, isAllowed });
  }

  async removeAuthenticators(aaGuids: string[]): Promise<void> {
    await this.#call('POST', 'authenticators/remove', { aaGuids });
  }

  async getCredentialsReport(period: ReportPeriod = {}): Promise<CredentialsReportDay[]> {
    return this.#call('GET', 'reporting/credentials/periodic', undefined, periodQuery(period));
  }

  async getActiveUsersReport(period: ReportPeriod = {}): Promise<ActiveUsersReportDay[]> {
    return this.#call('GET', 'reporting/active-users/periodic', undefined, periodQuery(period));
  }

  /** Closes the connection pool (not a dispatcher that was passed in). */
  async close(): Promise<void> {
    if (this.#ownsDispatcher) await this.#dispatcher.close();
  }

  // --- transport ------------------------------------------------------------------------------

  async #call<T>(method: Method, path: string, body?: unknown, query?: Record<string, string>): Promise<T> {
    const url = `${this.apiUrl}/${path}${query && Object.keys(query).length > 0 ? `?${new URLSearchParams(query)}` : ''}`;
    const headers: Record<string, string> = { ApiSecret: this.#apiSecret, Accept: 'application/json', 'Client-Version': VERSION };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const payload = body === undefined ? undefined : JSON.stringify(body);
    // A span and a traceparent (with an OpenTelemetry SDK in the host), and the call's time (with prom-client).
    const call = startServiceCall(method, path, headers, body);
    try {
      const answer = await this.#send<T>(method, url, headers, payload);
      call.end('ok');
      return answer;
    } catch (error) {
      call.end(error instanceof PasswordlessApiError ? error.status : 'unreachable');
      throw error;
    }
  }

  async #send<T>(method: Method, url: string, headers: Record<string, string>, payload: string | undefined): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      let answer: Dispatcher.ResponseData;
      try {
        answer = await request(url, { dispatcher: this.#dispatcher, method, headers, body: payload });
      } catch (error) {
        const code = errorCode(error);
        if (method === 'GET' && attempt === 1 && code !== undefined && STALE_CONNECTION_CODES.has(code)) continue;
        throw this.#unreachable(error, code);
      }
      return this.#read<T>(answer);
    }
  }

  async #read<T>(answer: Dispatcher.ResponseData): Promise<T> {
    const { statusCode } = answer;
    const contentType = String(answer.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
    let text: string;
    try {
      text = await answer.body.text();
    } catch (error) {
      throw this.#unreachable(error, errorCode(error));
    }
    if (statusCode >= 200 && statusCode < 300) {
      if (text === '') return undefined as T;
      try {
        return JSON.parse(text) as T;
      } catch {
        throw new PasswordlessApiError(problemBody('unexpected_response', 502, `The service answered ${statusCode} with a body that is not JSON.`));
      }
    }
    let parsed: unknown;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    if ((contentType === PROBLEM_CONTENT_TYPE || contentType === 'application/json') && isProblemBody(parsed)) {
      throw new PasswordlessApiError({ ...parsed, status: statusCode });
    }
    throw new PasswordlessApiError(problemBody('unexpected_response', statusCode, `The service answered ${statusCode} without problem details.`));
  }

  #unreachable(error: unknown, code: string | undefined): PasswordlessUnreachableError {
    if (code !== undefined && TIMEOUT_CODES.has(code)) {
      return new PasswordlessUnreachableError('service_timeout', `The passwordless service at ${this.apiUrl} did not answer in time (${code}).`, { cause: error });
    }
    return new PasswordlessUnreachableError('service_unreachable', `The passwordless service at ${this.apiUrl} could not be reached (${code ?? 'unknown error'}).`, {
      cause: error,
    });
  }
}

/** A report's query: only the bounds that are given. */
function periodQuery(period: ReportPeriod): Record<string, string> {
  const query: Record<string, string> = {};
  if (period.from !== undefined) query.from = period.from;
  if (period.to !== undefined) query.to = period.to;
  return query;
}
