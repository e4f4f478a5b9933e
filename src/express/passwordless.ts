import express, { type ErrorRequestHandler, type Request, type RequestHandler, type Response, type Router } from 'express';
import defaultPassport from 'passport';
import { PasswordlessClient } from './client';
import { HostProblem } from './errorCodes';
import { PasswordlessApiError, PasswordlessUnreachableError } from './errors';
import { problemOf, sendProblem } from './http';
import { expectedOriginsOf } from './requestOrigin';
import { refuseOtherSites, requireJsonRequest } from './requestGuards';
import { addCredentialRoute } from './routes/addCredential';
import { configRoute } from './routes/config';
import type { EmailVerification, HostLogger, PassportLike, RouteContext } from './routes/context';
import { loginRoute } from './routes/login';
import { logoutRoute } from './routes/logout';
import { registerRoute } from './routes/register';
import { verifyEmailLinkRoute, verifyEmailRoute } from './routes/verifyEmail';
import { sessionSerializers } from './sessionSerializers';
import { resolveSettings, type PasswordlessSettings, type PasswordlessSettingsInput } from './settings';
import { completeSignUp } from './signUpCompletion';
import { PasswordlessStrategy } from './strategy';
import { DEFAULT_THROTTLE, mailThrottle, throttles, type ThrottleGroup, type ThrottleSettings } from './throttle';
import type { LocalUser, UserStore } from './userStore';
import { PasswordlessSettingsError } from './errors';

export interface PasswordlessPaths {
  register: string | null;
  login: string | null;
  addCredential: string | null;
  logout: string | null;
  /** Only mounted with `verifyEmail`: the route the verification link opens (GET) and the page posts to. */
  verifyEmail: string | null;
  /** Only mounted with `exposeConfig`. */
  config: string | null;
}

export const DEFAULT_PATHS: PasswordlessPaths = {
  register: '/passwordless-register',
  login: '/passwordless-login',
  addCredential: '/passwordless-add-credential',
  logout: '/passwordless-logout',
  verifyEmail: '/passwordless-verify-email',
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
  /** Accept the `passkey_register` token of the session's pending sign-up at login, so that sign-up ends signed in. Default true. */
  signInAfterRegister?: boolean;
  /** Register a new user's email address as an alias (sign-in by email), once the user exists. Default true. */
  emailAsAlias?: boolean;
  /**
   * Sign-up first mails a link to the address (a magic link from the service pointing at the
   * `verifyEmail` route); the passkey ceremony starts only once the link is opened. `true`, or the
   * link's lifetime in seconds (default 900) and the host page it lands on (default `/`). The app
   * needs magic links enabled at the service. Default false.
   */
  verifyEmail?: boolean | { linkLifetimeSeconds?: number; page?: string };
  /** Accept `aliases` from the visitor at sign-up. Default false: a visitor could name someone else's address. */
  allowVisitorAliases?: boolean;
  /** The purposes a sign-in token may carry at login. Default `['sign-in']`. */
  purposes?: string[];
  /**
   * Per client address throttling of every route that costs a service call or writes (Express's
   * `req.ip`: set the host's `trust proxy` behind a proxy). Partial settings override the defaults;
   * `false` turns it off. Default {@link DEFAULT_THROTTLE}.
   */
  throttle?: Partial<ThrottleSettings> | false;
  /** Accept posts from other origins of the same site (`Sec-Fetch-Site: same-site`). Default false. */
  allowSameSite?: boolean;
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

const consoleLogger: HostLogger = { error: (details, message) => console.error(message, details), warn: (details, message) => console.warn(message, details) };

const DEFAULT_LINK_LIFETIME_SECONDS = 900;

function emailVerification(option: PasswordlessOptions['verifyEmail']): EmailVerification | undefined {
  if (!option) return undefined;
  const given = option === true ? {} : option;
  const linkLifetimeSeconds = given.linkLifetimeSeconds ?? DEFAULT_LINK_LIFETIME_SECONDS;
  if (!Number.isInteger(linkLifetimeSeconds) || linkLifetimeSeconds < 60 || linkLifetimeSeconds > 86_400) {
    throw new PasswordlessSettingsError('verifyEmail.linkLifetimeSeconds', 'must be a whole number of seconds from 60 to 86400.');
  }
  const page = given.page ?? '/';
  if (!page.startsWith('/') || page.startsWith('//')) throw new PasswordlessSettingsError('verifyEmail.page', "must be a path on this site, such as '/signup'.");
  return { linkLifetimeSeconds, page };
}

/** The user whose service userId this is: by `findById` when the userId is the user's id, else by `findByUserId`. */
function userFinder<U extends LocalUser>(users: UserStore<U>, claim: string | undefined): (userId: string) => Promise<U | null | undefined> {
  if (claim === undefined || claim === 'id') return (userId) => users.findById(userId);
  const findByUserId = users.findByUserId?.bind(users);
  if (!findByUserId) {
    throw new PasswordlessSettingsError('Passwordless__UserIdClaimType', `names '${claim.slice(0, 64)}', not 'id': the user store must then implement findByUserId(userId), so that sign-in finds users by it.`);
  }
  return findByUserId;
}

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
  const findUser = userFinder(users, settings.userIdClaimType);
  const logger = options.logger ?? consoleLogger;
  const expectedOrigins = expectedOriginsOf(settings.origins);
  const emailAsAlias = options.emailAsAlias !== false;
  const signUp = { users, client, findUser, userIdOf, emailAsAlias, aliasHashing: settings.register.aliasHashing, logger };

  const strategy = new PasswordlessStrategy<U>(
    {
      client,
      name: settings.signInScheme,
      signInAfterRegister: options.signInAfterRegister,
      purposes: options.purposes,
      expectedOrigins,
      onRefused: (refusal, req) =>
        (logger.warn ?? logger.error).call(logger, { ...refusal, expectedOrigins: expectedOrigins(req), path: req.path }, 'passwordless: a sign-in token was not accepted'),
    },
    // A registration token signs in only as the completion of this session's pending sign-up.
    async (verified, req) => (verified.type === 'passkey_register' ? completeSignUp(signUp, req, verified) : findUser(verified.userId)),
  );
  passport.use(settings.signInScheme, strategy);
  if (options.manageSessions !== false) {
    const serializers = sessionSerializers(users);
    passport.serializeUser(serializers.serializeUser);
    passport.deserializeUser(serializers.deserializeUser);
  }

  const paths = { ...DEFAULT_PATHS, ...options.paths };
  const verifyEmail = emailVerification(options.verifyEmail);
  const ctx: RouteContext<U> = {
    settings,
    client,
    users,
    passport,
    emailAsAlias,
    allowVisitorAliases: options.allowVisitorAliases === true,
    verifyEmail,
    verifyEmailPath: paths.verifyEmail ?? DEFAULT_PATHS.verifyEmail!,
    expectedOrigins,
    sessionCookieName: options.sessionCookieName ?? 'connect.sid',
    publicApiUrl: (options.publicApiUrl ?? settings.apiUrl).replace(/\/+$/, ''),
    publicUser: options.publicUser ?? defaultPublicUser,
    userIdOf,
    findUser,
    logger,
  };

  const throttle = options.throttle === false ? undefined : { ...DEFAULT_THROTTLE, ...options.throttle };
  const limits = throttle ? throttles(throttle) : undefined;
  const passThrough: RequestHandler = (_req, _res, next) => next();
  const limited = (group: ThrottleGroup) => limits?.[group] ?? passThrough;
  // Verification mails per address, whoever asks (the address as the route normalises it).
  const mailsPerAddress = throttle && verifyEmail ? mailThrottle(throttle, (req) => String((req.body as { email?: unknown } | undefined)?.email ?? '').trim().toLowerCase()) : passThrough;

  const router = express.Router();
  // Every state-changing route: only from this site's own pages (or a non-browser client), only
  // as JSON, throttled per client address before it costs the service anything.
  const post = (path: string | null, group: ThrottleGroup, ...handlers: RequestHandler[]) => {
    if (path !== null) router.post(path, refuseOtherSites(options.allowSameSite === true), requireJsonRequest, limited(group), express.json({ limit: '16kb' }), ...handlers);
  };
  post(paths.register, 'signUp', mailsPerAddress, registerRoute(ctx));
  post(paths.login, 'signIn', loginRoute(ctx));
  post(paths.addCredential, 'account', addCredentialRoute(ctx));
  post(paths.logout, 'account', logoutRoute(ctx));
  if (verifyEmail && paths.verifyEmail !== null) {
    router.get(paths.verifyEmail, verifyEmailLinkRoute(ctx, verifyEmail.page));
    post(paths.verifyEmail, 'signUp', verifyEmailRoute(ctx));
  }
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
