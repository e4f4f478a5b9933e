import express, { type ErrorRequestHandler, type Request, type RequestHandler, type Response, type Router } from 'express';
import defaultPassport from 'passport';
import { browserModuleRoutes } from './browserModule';
import { PasswordlessClient } from './client';
import { HostProblem } from './errorCodes';
import { PasswordlessApiError, PasswordlessSettingsError, PasswordlessUnreachableError } from './errors';
import { linkOption, originsOption, secondsOption, userFinder, userIdReader } from './hostOptions';
import { problemOf, sendProblem } from './http';
import { hostMail } from './hostMail';
import { hostOrigins } from './hostOrigins';
import { DEFAULT_MAIL_BUDGET, type MailBudgetSettings, type MailUsage } from './mailBudget';
import { newPasskeys } from './newPasskeys';
import { passkeyHooks, type PasskeyHookOptions } from './passkeyHooks';
import { refuseOtherSites, requireJsonRequest } from './requestGuards';
import { addCredentialCompleteRoute, addCredentialRoute } from './routes/addCredential';
import { configRoute } from './routes/config';
import { doctorRoute } from './routes/doctor';
import { runDoctor } from './doctor/runDoctor';
import type { DoctorCheck } from './doctor/doctorCheck';
import type { HostLogger, PassportLike, RouteContext, SessionCookieOptions } from './routes/context';
import { loginRoute } from './routes/login';
import { logoutRoute } from './routes/logout';
import { deletePasskeyRoute, listPasskeysRoute, renamePasskeyRoute } from './routes/passkeys';
import { confirmRecoveryRoute, recoverRoute, recoveryLinkRoute, type Recovery } from './routes/recover';
import { registerRoute } from './routes/register';
import { endSessionRoute, listSessionsRoute } from './routes/sessions';
import { stepUpRoute } from './routes/stepUp';
import { upgradeRoute } from './routes/upgrade';
import { notePasswordSignInFor } from './notePasswordSignIn';
import { verifyEmailLinkRoute, verifyEmailRoute } from './routes/verifyEmail';
import { passkeyEndpointsRoute, relatedOriginsRoute, type PasskeyEndpoints } from './routes/wellKnown';
import { sessionSerializers } from './sessionSerializers';
import { sessionFeatures, type SessionFeatureOptions, type UserRevocation } from './sessions/sessionFeatures';
import { resolveSettings, type PasswordlessSettings, type PasswordlessSettingsInput } from './settings';
import { completeSignUp } from './signUpCompletion';
import { stepUpGuard, type StepUpOptions } from './stepUp';
import { PasswordlessStrategy, type TokenAcceptance } from './strategy';
import { DEFAULT_THROTTLE, throttles, type ThrottleGroup, type ThrottleSettings } from './throttle';
import type { LocalUser, UserStore } from './userStore';
import { routeTelemetry } from './telemetry/routeTelemetry';

export interface PasswordlessPaths {
  register: string | null;
  login: string | null;
  addCredential: string | null;
  /** Where the browser reports the passkey it made with addCredential's token, so that the host hears of it. */
  addCredentialComplete: string | null;
  logout: string | null;
  /** Only mounted with `verifyEmail`: the route the verification link opens (GET) and the page posts to. */
  verifyEmail: string | null;
  /** The signed-in user's passkeys (GET). */
  passkeys: string | null;
  renamePasskey: string | null;
  /** Behind a step-up. */
  deletePasskey: string | null;
  stepUp: string | null;
  /** Only mounted with `recovery`: the request (POST) and the link's route (GET). */
  recover: string | null;
  confirmRecovery: string | null;
  /** Only mounted with the session features (`sessionStore`): the signed-in user's sessions (GET) and ending them (POST). */
  sessions: string | null;
  endSession: string | null;
  /** Only mounted with `exposeConfig`. */
  config: string | null;
  /** What `passwordless-selfhost doctor --url` asks; answers only a caller holding the ApiSecret. */
  doctor: string | null;
  /** Right after a password sign-in (`notePasswordSignIn`): a token for the automatic passkey upgrade (a conditional create). */
  upgrade: string | null;
}

export const DEFAULT_PATHS: PasswordlessPaths = {
  register: '/passwordless-register',
  login: '/passwordless-login',
  addCredential: '/passwordless-add-credential',
  addCredentialComplete: '/passwordless-add-credential/complete',
  logout: '/passwordless-logout',
  verifyEmail: '/passwordless-verify-email',
  passkeys: '/passwordless-passkeys',
  renamePasskey: '/passwordless-passkeys/rename',
  deletePasskey: '/passwordless-passkeys/delete',
  stepUp: '/passwordless-step-up',
  recover: '/passwordless-recover',
  confirmRecovery: '/passwordless-recover/confirm',
  sessions: '/passwordless-sessions',
  endSession: '/passwordless-sessions/end',
  config: '/passwordless-config',
  doctor: '/passwordless-doctor',
  upgrade: '/passwordless-upgrade',
};

export interface PasswordlessOptions<U extends LocalUser = LocalUser> extends PasswordlessSettingsInput, PasskeyHookOptions<U>, SessionFeatureOptions {
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
   * `verifyEmail` route); the passkey ceremony starts only once the link is opened, and an address
   * that has an account gets the same answer (its owner is mailed instead). `true`, or the link's
   * lifetime in seconds (default 900) and the host page it lands on (default `/`). The app needs
   * magic links enabled at the service. Default true; `false` makes the email address an
   * unverified claim (a warning says so at start-up).
   */
  verifyEmail?: boolean | { linkLifetimeSeconds?: number; page?: string };
  /**
   * A check before each sign-up (a CAPTCHA's verification, a proof of work): resolve true to let it
   * go on; false, or an error, refuses it with 403 `challenge_failed`. Off by default.
   */
  signUpChallenge?: (req: Request) => boolean | Promise<boolean>;
  /**
   * Host-wide caps on the verification and recovery mails (each spends one of the app's magic-link
   * quota at the service), with a share kept for recovery; `false` turns them off. Default
   * {@link DEFAULT_MAIL_BUDGET}: 10 an hour, 30 a day, 30 % for recovery only.
   */
  mailBudget?: Partial<MailBudgetSettings> | false;
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
  /**
   * Account recovery by email: `POST /passwordless-recover {email}` mails a link that signs in once.
   * Needs the store's `findByEmail`, and magic links and generated tokens allowed for the app at the
   * service. `true`, or the link's lifetime in seconds (default 900) and the host page it lands on,
   * which shows the confirm button (default `/`). Default false.
   */
  recovery?: boolean | { linkLifetimeSeconds?: number; page?: string };
  /** Let a user delete their last passkey (they could then sign in again only through recovery). Default false. */
  allowDeletingLastPasskey?: boolean;
  /** How recent a step-up must be to delete or add a passkey, in seconds. Default 300. */
  stepUpMaxAge?: number;
  /**
   * How long after a sign-up, a recovery or a noted password sign-in (`notePasswordSignIn`) the
   * session may add a passkey without a step-up, in seconds (a password sign-in once: it is spent
   * by the token). Default 300.
   */
  freshSessionSeconds?: number;
  /**
   * How old a passkey must be before it confirms a step-up, in seconds, in any session but the one
   * of the sign-up or recovery that made it (as the service's clock has it). Default 3600.
   */
  newPasskeyStepUpDelaySeconds?: number;
  /** Serve `/.well-known/passkey-endpoints` pointing at these host pages (W3C Passkey Endpoints). */
  passkeyEndpoints?: PasskeyEndpoints;
  /** Serve `/.well-known/webauthn` with these origins (Related Origin Requests: other sites that share this RP ID). */
  relatedOrigins?: string[];
  /**
   * Serve the browser module (`passwordless-selfhost/browser`) and the published client, so that a
   * host needs no bundler: `true` mounts them under `/passwordless-browser/`, a string elsewhere.
   */
  serveBrowserModule?: boolean | string;
  /** The clock of the middleware's time rules (step-up age, pending sign-ups, links); default Date.now. For tests. */
  now?: () => number;
  /** The browser module restarts an autofill request this often, before its challenge expires (the service's ceremony timeout is 60 s). Default 50. */
  autofillRestartSeconds?: number;
  /** Install passport.serializeUser/deserializeUser through `users`. Default true. */
  manageSessions?: boolean;
  /** express-session's cookie name, cleared at logout. Default `connect.sid`. */
  sessionCookieName?: string;
  /**
   * The attributes express-session sets the cookie with (its `cookie` option's path, domain,
   * secure, sameSite, httpOnly), which logout clears it with: a browser keeps a cookie whose
   * clearing names another path or domain, and a `__Host-` one cleared without Secure. Default
   * `{ path: '/' }`, express-session's.
   */
  sessionCookieOptions?: SessionCookieOptions;
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
   * A guard for the host's sensitive routes: only a user who stepped up for `purpose` (default
   * `step-up`) in this session within `maxAge` seconds (default 300) passes; others get 401
   * `step_up_required`, naming the purpose.
   */
  requireStepUp(options?: StepUpOptions): RequestHandler;
  /**
   * An error handler for the host's own routes that call `client`: the service's errors become
   * problem answers as in the middleware's routes; any other error goes on to the host's handlers.
   */
  handleErrors: ErrorRequestHandler;
  /** The host-wide mail budget's counts this hour and day (zeros without a budget). */
  mailUsage(): Promise<MailUsage>;
  /**
   * Checks the deployment as `passwordless-selfhost doctor` does, with these settings: one check
   * per entry, each failure with its fix. `url`: the public URL to reach this host through;
   * `rpId`: the pages' RP ID (default: the first origin's host).
   */
  doctor(options?: { url?: string; rpId?: string }): Promise<DoctorCheck[]>;
  /**
   * Call right after the host's own password sign-in (after `req.logIn`): notes that the signed-in
   * user proved their password now, so that the page may get one registration token within
   * `freshSessionSeconds`: the automatic passkey upgrade (`POST /passwordless-upgrade`) or an added
   * passkey (`POST /passwordless-add-credential`), whichever asks first.
   */
  notePasswordSignIn(req: Request): void;
  /**
   * For the host's admin code: deletes every passkey of the user (their service userId) at the
   * service, then ends all their sessions; answers how many of each. Needs `sessionStore`.
   */
  revokeUser(userId: string): Promise<UserRevocation>;
};

const consoleLogger: HostLogger = { error: (details, message) => console.error(message, details), warn: (details, message) => console.warn(message, details) };

function defaultPublicUser(user: LocalUser): Record<string, unknown> {
  return { id: user.id, email: user.email, username: user.username, displayName: user.displayName };
}

/** The mail budget's settings, checked: whole numbers of mails, a share between 0 and 1. */
function mailBudgetOption(settings: MailBudgetSettings): MailBudgetSettings {
  const whole = (value: number, name: string) => {
    if (!Number.isInteger(value) || value < 0) throw new PasswordlessSettingsError(`mailBudget.${name}`, 'must be a whole number of mails, 0 or more.');
  };
  whole(settings.perHour, 'perHour');
  whole(settings.perDay, 'perDay');
  if (!(settings.recoveryShare >= 0 && settings.recoveryShare <= 1)) throw new PasswordlessSettingsError('mailBudget.recoveryShare', 'must be a number from 0 to 1.');
  return settings;
}

function bodyParserProblem(error: unknown): HostProblem | undefined {
  const type = (error as { type?: unknown } | null)?.type;
  if (type === 'entity.too.large') return new HostProblem('payload_too_large', 'Request bodies are limited to 16 KiB.');
  if (typeof type === 'string' && type.startsWith('entity.')) return new HostProblem('validation_failed', 'The request body is not valid JSON.');
  return undefined;
}

/**
 * The Express middleware: passkey sign-up, sign-in, passkey management, step-up, recovery and
 * sign-out routes for a host app, on its own session through Passport. Settings come from `options` or `Passwordless__*`
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
  const warn = (logger.warn ?? logger.error).bind(logger);
  const emailAsAlias = options.emailAsAlias !== false;
  const paths = { ...DEFAULT_PATHS, ...options.paths };
  const verifyEmail = linkOption(options.verifyEmail ?? true, 'verifyEmail');
  const recoveryLink = linkOption(options.recovery, 'recovery');
  if (recoveryLink && typeof users.findByEmail !== 'function') throw new PasswordlessSettingsError('recovery', 'needs a user store with findByEmail(email).');
  const production = (options.env ?? process.env).NODE_ENV === 'production';
  const site = hostOrigins({
    origins: settings.origins,
    publicUrl: settings.publicUrl,
    required: verifyEmail ? { because: 'with verifyEmail (on by default)' } : recoveryLink ? { because: 'with recovery' } : production ? { because: 'in production (NODE_ENV=production)' } : undefined,
    warn,
  });
  // Without the sign-up route (paths.register: null) nobody claims an address.
  if (!verifyEmail && paths.register !== null) {
    warn({}, 'passwordless: verifyEmail is off, so the email address a visitor signs up with is an unverified claim: anyone can sign up with an address that is not theirs, and a taken address is refused with 409 user_exists, which tells who has an account.');
  }
  const stepUpMaxAge = secondsOption(options.stepUpMaxAge, 'stepUpMaxAge', 300, 1, 86_400);
  const freshSessionSeconds = secondsOption(options.freshSessionSeconds, 'freshSessionSeconds', 300, 0, 3600);
  const newPasskeyStepUpDelaySeconds = secondsOption(options.newPasskeyStepUpDelaySeconds, 'newPasskeyStepUpDelaySeconds', 3600, 0, 30 * 86_400);
  const autofillRestartSeconds = secondsOption(options.autofillRestartSeconds, 'autofillRestartSeconds', 50, 1, 3600);
  const relatedOrigins = originsOption(options.relatedOrigins, 'relatedOrigins');
  const now = options.now ?? Date.now;

  const tokenAcceptance: TokenAcceptance = {
    types: new Set(['passkey_signin', ...(options.signInAfterRegister === false ? [] : ['passkey_register' as const])]),
    purposes: options.purposes ?? ['sign-in'],
    expectedOrigins: site.origins,
    onRefused: (refusal, req) => warn({ expectedOrigins: site.origins(req), ...refusal, path: req.path }, 'passwordless: a sign-in token was not accepted'),
  };
  const signUp = { users, client, findUser, userIdOf, emailAsAlias, aliasHashing: settings.register.aliasHashing, logger, now };
  const strategy = new PasswordlessStrategy<U>(
    {
      client,
      name: settings.signInScheme,
      signInAfterRegister: options.signInAfterRegister,
      purposes: tokenAcceptance.purposes,
      expectedOrigins: site.origins,
      onRefused: tokenAcceptance.onRefused,
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

  const throttle = options.throttle === false ? undefined : { ...DEFAULT_THROTTLE, ...options.throttle };
  const budget = options.mailBudget === false ? undefined : mailBudgetOption({ ...DEFAULT_MAIL_BUDGET, store: throttle?.store, ...options.mailBudget });
  const mail = hostMail(throttle, budget);
  const recovery: Recovery | undefined =
    recoveryLink && paths.recover !== null ? { ...recoveryLink, path: paths.recover, findByEmail: (email) => users.findByEmail!(email) } : undefined;

  const sessions = sessionFeatures(options, { client, secret: settings.apiSecret, userIdOf, logger, now });
  const hooks = passkeyHooks(options, logger);
  const ctx: RouteContext<U> = {
    settings,
    client,
    users,
    passport,
    emailAsAlias,
    allowVisitorAliases: options.allowVisitorAliases === true,
    verifyEmail,
    verifyEmailPath: paths.verifyEmail ?? DEFAULT_PATHS.verifyEmail!,
    site,
    recovery,
    mail,
    signUpChallenge: options.signUpChallenge,
    hooks,
    newPasskeys: newPasskeys({ client, findUser, hooks, logger, store: throttle?.store }),
    stepUpMaxAge,
    freshSessionSeconds,
    newPasskeyStepUpDelaySeconds,
    tokenAcceptance,
    sessionCookieName: options.sessionCookieName ?? 'connect.sid',
    sessionCookieOptions: { path: '/', ...options.sessionCookieOptions },
    publicApiUrl: (options.publicApiUrl ?? settings.apiUrl).replace(/\/+$/, ''),
    publicUser: options.publicUser ?? defaultPublicUser,
    userIdOf,
    findUser,
    logger,
    // What is mounted, for the browser module's config: a route that is off is not there.
    paths: { ...paths, ...sessions.mounted(paths), verifyEmail: verifyEmail ? paths.verifyEmail : null, recover: recovery ? paths.recover : null, confirmRecovery: recovery ? paths.confirmRecovery : null },
    autofillRestartSeconds,
    now,
    sessions: sessions.accountSessions,
  };

  const limits = throttle ? throttles(throttle) : undefined;
  const passThrough: RequestHandler = (_req, _res, next) => next();
  const limited = (group: ThrottleGroup) => limits?.[group] ?? passThrough;
  const requireStepUp = stepUpGuard(userIdOf, now);

  const router = express.Router();
  // First: a span per route, and the host's metrics (telemetry/routeTelemetry.ts).
  router.use(routeTelemetry(ctx.paths));
  const { fixOnFirstRequest } = site;
  if (fixOnFirstRequest) {
    router.use((req, _res, next) => {
      fixOnFirstRequest(req);
      next();
    });
  }
  if (sessions.accountSessions) router.use(sessions.accountSessions.track);
  // Every state-changing route: only from this site's own pages (or a non-browser client), only
  // as JSON, throttled per client address before it costs the service anything.
  const post = (path: string | null, group: ThrottleGroup | undefined, ...handlers: RequestHandler[]) => {
    if (path !== null) router.post(path, refuseOtherSites(options.allowSameSite === true), requireJsonRequest, ...(group ? [limited(group)] : []), express.json({ limit: '16kb' }), ...handlers);
  };
  const get = (path: string | null, group: ThrottleGroup | undefined, handler: RequestHandler) => {
    if (path !== null) router.get(path, ...(group ? [limited(group)] : []), handler);
  };
  post(paths.register, 'signUp', registerRoute(ctx));
  post(paths.login, 'signIn', loginRoute(ctx));
  post(paths.addCredential, 'account', addCredentialRoute(ctx));
  post(paths.addCredentialComplete, 'account', addCredentialCompleteRoute(ctx));
  // Sign-out is never refused for a spent budget: a busy page must still be able to end its session.
  post(paths.logout, undefined, logoutRoute(ctx));
  if (verifyEmail) {
    get(paths.verifyEmail, undefined, verifyEmailLinkRoute(ctx, verifyEmail.page));
    post(paths.verifyEmail, 'signUp', verifyEmailRoute(ctx));
  }
  get(paths.passkeys, 'account', listPasskeysRoute(ctx));
  post(paths.renamePasskey, 'account', renamePasskeyRoute(ctx));
  post(paths.deletePasskey, 'account', requireStepUp({ maxAge: stepUpMaxAge }), deletePasskeyRoute(ctx, options.allowDeletingLastPasskey === true));
  post(paths.stepUp, 'account', stepUpRoute(ctx));
  post(paths.upgrade, 'account', upgradeRoute(ctx));
  if (sessions.accountSessions) {
    get(paths.sessions, 'account', listSessionsRoute(ctx, sessions.accountSessions));
    post(paths.endSession, 'account', endSessionRoute(ctx, sessions.accountSessions));
  }
  if (recovery) {
    post(paths.recover, 'recover', recoverRoute(ctx, recovery));
    get(paths.recover, undefined, recoveryLinkRoute(recovery));
    post(paths.confirmRecovery, 'recover', confirmRecoveryRoute(ctx));
  }
  if (options.passkeyEndpoints) router.get('/.well-known/passkey-endpoints', passkeyEndpointsRoute(options.passkeyEndpoints, site));
  if (relatedOrigins) router.get('/.well-known/webauthn', relatedOriginsRoute(relatedOrigins));
  if (options.serveBrowserModule) router.use(browserModuleRoutes(options.serveBrowserModule === true ? '/passwordless-browser' : options.serveBrowserModule));
  if (options.exposeConfig && paths.config !== null) router.get(paths.config, configRoute(ctx));
  get(paths.doctor, undefined, doctorRoute(settings.apiSecret, site, now));

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

  const mailUsage = async (): Promise<MailUsage> => {
    if (mail.budget) return mail.budget.usage();
    const none = { sent: 0, limit: 0, signUps: 0, signUpLimit: 0 };
    return { hour: none, day: none };
  };

  const doctor = (check: { url?: string; rpId?: string } = {}) =>
    runDoctor({ settings, ...check, mailedLinks: { verifyEmail: Boolean(verifyEmail), recovery: Boolean(recovery) }, doctorPath: paths.doctor ?? undefined });

  const notePasswordSignIn = notePasswordSignInFor(userIdOf, now);
  return Object.assign(router, { settings, client, strategy, userIdOf, requireUser, requireStepUp, handleErrors, mailUsage, doctor, notePasswordSignIn, revokeUser: sessions.revokeUser });
}
