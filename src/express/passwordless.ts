import express, { type ErrorRequestHandler, type Request, type RequestHandler, type Response, type Router } from 'express';
import defaultPassport from 'passport';
import { PasswordlessClient } from './client';
import { HostProblem } from './errorCodes';
import { PasswordlessApiError, PasswordlessUnreachableError } from './errors';
import { problemOf, refuseCrossSite, sendProblem } from './http';
import { addCredentialRoute } from './routes/addCredential';
import { configRoute } from './routes/config';
import type { HostLogger, PassportLike, RouteContext } from './routes/context';
import { loginRoute } from './routes/login';
import { logoutRoute } from './routes/logout';
import { registerRoute } from './routes/register';
import { sessionSerializers } from './sessionSerializers';
import { resolveSettings, type PasswordlessSettings, type PasswordlessSettingsInput } from './settings';
import { PasswordlessStrategy } from './strategy';
import type { LocalUser, UserStore } from './userStore';

export interface PasswordlessPaths {
  register: string | null;
  login: string | null;
  addCredential: string | null;
  logout: string | null;
  /** Only mounted with `exposeConfig`. */
  config: string | null;
}

export const DEFAULT_PATHS: PasswordlessPaths = {
  register: '/passwordless-register',
  login: '/passwordless-login',
  addCredential: '/passwordless-add-credential',
  logout: '/passwordless-logout',
  config: '/passwordless-config',
};

export interface PasswordlessOptions<U extends LocalUser = LocalUser> extends PasswordlessSettingsInput {
  /** The host's users. */
  users: UserStore<U>;
  /** The host's passport instance. Default: the `passport` module's. */
  passport?: PassportLike;
  /** Where unset settings are read from. Default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** A path set to null is not mounted. */
  paths?: Partial<PasswordlessPaths>;
  /** Mount `GET /passwordless-config` (`{apiUrl, apiKey}` for the browser client). Default false. */
  exposeConfig?: boolean;
  /** The service's URL as browsers reach it, for `/passwordless-config`. Default `ApiUrl`. */
  publicApiUrl?: string;
  /** Accept the `passkey_register` token at login, so that sign-up ends signed in. Default true. */
  signInAfterRegister?: boolean;
  /** Register a new user's email address as an alias (sign-in by email). Default true. */
  emailAsAlias?: boolean;
  /** Install passport.serializeUser/deserializeUser through `users`. Default true. */
  manageSessions?: boolean;
  /** express-session's cookie name, cleared at logout. Default `connect.sid`. */
  sessionCookieName?: string;
  /** The fields login answers with. Default `{id, email, username, displayName}`. */
  publicUser?: (user: U) => Record<string, unknown>;
  /** Where unexpected failures are logged. Default: the console. Never given a secret. */
  logger?: HostLogger;
  /** A client to use instead of one made from the settings. */
  client?: PasswordlessClient;
}

/** The router `passwordless()` returns, with what a host needs for its own routes. */
export type PasswordlessMiddleware<U extends LocalUser = LocalUser> = Router & {
  readonly settings: PasswordlessSettings;
  readonly client: PasswordlessClient;
  readonly strategy: PasswordlessStrategy<U>;
  /** The service userId of a signed-in user (`UserIdClaimType`, else `id`, else `sub`). */
  userIdOf(user: unknown): string | undefined;
  /** Lets signed-in requests through; answers others with a 401 problem. */
  requireUser: RequestHandler;
  /**
   * An error handler for the host's own routes that call `client`: the service's errors become
   * problem answers as in the middleware's routes; any other error goes on to the host's handlers.
   */
  handleErrors: ErrorRequestHandler;
};

const consoleLogger: HostLogger = { error: (details, message) => console.error(message, details) };

function defaultPublicUser(user: LocalUser): Record<string, unknown> {
  return { id: user.id, email: user.email, username: user.username, displayName: user.displayName };
}

function userIdReader(claim: string | undefined): (user: unknown) => string | undefined {
  return (user) => {
    if (user === null || typeof user !== 'object') return undefined;
    const record = user as Record<string, unknown>;
    const value = claim !== undefined ? record[claim] : (record.id ?? record.sub);
    return typeof value === 'string' || typeof value === 'number' ? String(value) : undefined;
  };
}

/** A body that is not JSON is refused (415) rather than read as an empty form; it also stops form posts. */
const requireJson: RequestHandler = (req, _res, next) => {
  const hasBody = Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
  next(hasBody && !req.is('application/json') ? new HostProblem('unsupported_media_type') : undefined);
};

function bodyParserProblem(error: unknown): HostProblem | undefined {
  const type = (error as { type?: unknown } | null)?.type;
  if (type === 'entity.too.large') return new HostProblem('payload_too_large', 'Request bodies are limited to 16 KiB.');
  if (typeof type === 'string' && type.startsWith('entity.')) return new HostProblem('validation_failed', 'The request body is not valid JSON.');
  return undefined;
}

/**
 * The Express middleware: passkey sign-up, sign-in, add-a-passkey and sign-out routes for a host
 * app, on its own session through Passport. Settings come from `options` or `Passwordless__*`
 * environment keys and are checked here, at start-up. Mount after express-session,
 * `passport.initialize()` and `passport.session()`.
 */
export function passwordless<U extends LocalUser = LocalUser>(options: PasswordlessOptions<U>): PasswordlessMiddleware<U> {
  if (!options || typeof options.users?.create !== 'function') throw new TypeError('passwordless({ users }) needs a user store (create, findById, remove).');
  const settings = resolveSettings(options, options.env ?? process.env);
  const client = options.client ?? new PasswordlessClient({ apiSecret: settings.apiSecret, apiUrl: settings.apiUrl });
  const passport: PassportLike = options.passport ?? defaultPassport;
  const userIdOf = userIdReader(settings.userIdClaimType);
  const users = options.users;
  const logger = options.logger ?? consoleLogger;

  const strategy = new PasswordlessStrategy<U>(
    { client, name: settings.signInScheme, signInAfterRegister: options.signInAfterRegister },
    async (verified) => users.findById(verified.userId),
  );
  passport.use(settings.signInScheme, strategy);
  if (options.manageSessions !== false) {
    const serializers = sessionSerializers(users, userIdOf);
    passport.serializeUser(serializers.serializeUser);
    passport.deserializeUser(serializers.deserializeUser);
  }

  const ctx: RouteContext<U> = {
    settings,
    client,
    users,
    passport,
    emailAsAlias: options.emailAsAlias !== false,
    sessionCookieName: options.sessionCookieName ?? 'connect.sid',
    publicApiUrl: (options.publicApiUrl ?? settings.apiUrl).replace(/\/+$/, ''),
    publicUser: options.publicUser ?? defaultPublicUser,
    userIdOf,
    logger,
  };

  const paths = { ...DEFAULT_PATHS, ...options.paths };
  const router = express.Router();
  const post = (path: string | null, handler: RequestHandler) => {
    if (path !== null) router.post(path, refuseCrossSite, requireJson, express.json({ limit: '16kb' }), handler);
  };
  post(paths.register, registerRoute(ctx));
  post(paths.login, loginRoute(ctx));
  post(paths.addCredential, addCredentialRoute(ctx));
  post(paths.logout, logoutRoute(ctx));
  if (options.exposeConfig && paths.config !== null) router.get(paths.config, configRoute(ctx));

  const answer = (error: unknown, req: Request, res: Response) => {
    const { problem, log } = problemOf(error);
    if (log) logger.error({ err: error instanceof Error ? { name: error.name, message: error.message, stack: error.stack } : String(error), path: req.path }, 'passwordless: request failed');
    sendProblem(res, problem);
  };
  router.use(((error, req, res, next) => {
    if (res.headersSent) next(error);
    else answer(bodyParserProblem(error) ?? error, req, res);
  }) as ErrorRequestHandler);
  const handleErrors: ErrorRequestHandler = (error, req, res, next) => {
    const ours = error instanceof PasswordlessApiError || error instanceof PasswordlessUnreachableError || error instanceof HostProblem;
    if (!ours || res.headersSent) next(error);
    else answer(error, req, res);
  };

  const requireUser: RequestHandler = (req, res, next) => {
    if (req.isAuthenticated?.() && req.user) next();
    else sendProblem(res, new HostProblem('not_signed_in').problem);
  };

  return Object.assign(router, { settings, client, strategy, userIdOf, requireUser, handleErrors });
}
