import express, { type ErrorRequestHandler, type Request, type RequestHandler, type Response, type Router } from 'express';
import session from 'express-session';
import { Passport } from 'passport';
import type { Logger } from 'pino';
import { PasswordlessClient } from '../../express/client';
import { DEFAULT_PATHS, passwordless, type PasswordlessPaths } from '../../express/passwordless';
import { ApiError } from '../core/apiError';
import type { Services } from '../services';
import { consoleAssets } from './consoleAssets';
import { CONSOLE_APP_ID } from './consoleAppId';
import type { ConsoleContext } from './consoleContext';
import { consoleCookie } from './consoleCookie';
import { consoleHeaders } from './consoleHeaders';
import { consoleCookieSecret } from './consoleKeys';
import { normalisedPath } from './consolePathOf';
import { consoleRoutes } from './consoleRoutes';
import { consoleSecrets } from './consoleSecrets';
import { adoptConsoleKeys, ConsoleRefusal, ensureConsoleApp } from './ensureConsoleApp';
import { html } from './html';
import { layout } from './layout';
import { OperatorStore, type Operator } from './operatorStore';
import { consolePages } from './pages';
import { publicPages } from './pages/publicPages';
import { consoleSessionStore } from './sessions/consoleSessionStore';

export const CONSOLE_BASE = '/console';

/** Operators are invited, not signed up, and have no passwords. */
const UNUSED_PATHS = new Set(['register', 'verifyEmail', 'doctor', 'upgrade']);

export interface ConsoleOptions {
  /** Where this process's own API listens (the middleware calls it), known once it listens. */
  serviceUrl(): string;
  logger: Logger;
  now?: () => number;
}

/**
 * Whether a request path is the console's: `/console` or under it once normalised as a browser
 * would (`/console/../admin` is not; `/console/%2e%2e/x` neither).
 */
export function isConsolePath(path: string): boolean {
  // Every request of the API passes here: only a path that names the console is parsed (a dot
  // segment or a backslash never makes `console` appear, and percent-encoded letters stay encoded).
  if (!path.includes('console')) return false;
  const normalised = normalisedPath(path);
  return normalised === CONSOLE_BASE || normalised.startsWith(`${CONSOLE_BASE}/`);
}

/** A plain page for a refusal or a failure, in the console's look (no operator: nothing of the session is needed). */
function problemPage(ctx: ConsoleContext, req: Request, res: Response, status: number, title: string, detail?: string): void {
  res.status(status).type('html').send(layout(ctx, req, { title, body: html`${detail && html`<p>${detail}</p>`}<p><a href="${ctx.base}/apps">Back to the console</a></p>` }));
}

/** The status body-parser gave an error it raised (`entity.too.large`, `parameters.too.many`, …), if it is one. */
function bodyParserStatus(error: unknown): number | undefined {
  const { type, status } = (error ?? {}) as { type?: unknown; status?: unknown };
  return typeof type === 'string' && typeof status === 'number' && status >= 400 && status < 500 ? status : undefined;
}

async function buildConsole(services: Services, options: ConsoleOptions, secrets: Buffer[]): Promise<Router> {
  const { config } = services;
  const publicUrl = config.publicUrl;
  const url = new URL(publicUrl);
  if (url.pathname !== '/' && url.pathname !== '') throw new Error('the console needs PUBLIC_URL without a path (it is served at PUBLIC_URL/console)');
  const origin = url.origin;
  const now = options.now ?? Date.now;
  const claim = await ensureConsoleApp(services, { origin, serving: true });
  const keys = await adoptConsoleKeys(services, secrets);
  if (claim === 'legacy') options.logger.info('the console app of an older version was recognised: its keys, derived from the database, were replaced by keys of the console secret');
  const cookie = consoleCookie(url, CONSOLE_BASE);
  const store = consoleSessionStore({ redis: services.redis, keyPrefix: config.redisKeyPrefix, idleMs: config.console.idleMs, now });
  const passport = new Passport();
  const operators = new OperatorStore(services);
  const auth = passwordless<Operator>({
    env: {},
    users: operators,
    passport,
    apiKey: keys.apiKey,
    apiSecret: keys.apiSecret,
    client: new PasswordlessClient({ apiSecret: keys.apiSecret, apiUrl: options.serviceUrl() }),
    publicApiUrl: publicUrl,
    publicUrl,
    origins: [origin],
    register: { aliasHashing: false, userVerification: 'required', discoverable: true },
    verifyEmail: false,
    recovery: config.smtpUrl ? { page: `${CONSOLE_BASE}/recover` } : false,
    sessionStore: store,
    sessionCookieName: cookie.name,
    sessionCookieOptions: cookie.options,
    exposeConfig: true,
    serveBrowserModule: `${CONSOLE_BASE}/passwordless-browser`,
    // The middleware's own routes under /console, but for sign-up, the doctor and the password upgrade, which the console has no use for.
    paths: Object.fromEntries(
      Object.entries(DEFAULT_PATHS).map(([name, path]) => [name, path === null || UNUSED_PATHS.has(name) ? null : `${CONSOLE_BASE}${path}`]),
    ) as Partial<PasswordlessPaths>,
    now,
    logger: { error: (details, message) => options.logger.error(details, message), warn: (details, message) => options.logger.warn(details, message) },
  });
  const ctx: ConsoleContext = { services, auth, base: CONSOLE_BASE, publicUrl, origin, sessionCookie: cookie, now, logger: options.logger };

  const router = express.Router();
  router.use(consoleHeaders);
  router.use(consoleAssets(CONSOLE_BASE));
  router.use(
    session({
      name: cookie.name,
      // Derived from the console's secrets (never from the database), so that every replica agrees: the current one signs, previous ones still open.
      secret: secrets.map(consoleCookieSecret),
      store,
      resave: false,
      saveUninitialized: false,
      // Every request moves the expiry: the session ends after CONSOLE_IDLE_MINUTES without one.
      rolling: true,
      proxy: config.trustProxy !== false,
      cookie: { ...cookie.options, maxAge: config.console.idleMs },
    }),
  );
  router.use(passport.initialize(), passport.session());
  router.use(auth);
  const routes = consoleRoutes(ctx, router);
  publicPages(ctx, router);
  // Everything past here is for signed-in operators: a visitor is sent to sign in, and comes back.
  router.use((req, res, next) => {
    if (req.isAuthenticated?.() && req.user) next();
    else if (req.method === 'GET' || req.method === 'HEAD') res.redirect(303, `${CONSOLE_BASE}/sign-in?next=${encodeURIComponent(req.originalUrl)}`);
    else problemPage(ctx, req, res, 401, 'Sign in first', 'Your session ended. Sign in and try again.');
  });
  consolePages(ctx, routes, router);
  router.use((req, res) => problemPage(ctx, req, res, 404, 'Not found', 'There is no such console page.'));
  router.use(((error, req, res, _next) => {
    if (res.headersSent) {
      res.end();
      return;
    }
    if (error instanceof ApiError && error.status < 500) {
      problemPage(ctx, req, res, error.status, error.message, error.detail);
      return;
    }
    // A body the parsers refused (too large, too many fields, not decodable) is the sender's mistake.
    const parserStatus = bodyParserStatus(error);
    if (parserStatus !== undefined) {
      problemPage(ctx, req, res, parserStatus, parserStatus === 413 ? 'The form is too large' : 'The form could not be read');
      return;
    }
    options.logger.error({ err: error, path: req.path }, 'console request failed');
    problemPage(ctx, req, res, 500, 'Something went wrong', 'The failure was logged.');
  }) as ErrorRequestHandler);
  return router;
}

/** The console's handler, and its start at the service's start. */
export type ConsoleHandler = RequestHandler & {
  /**
   * Builds the console at once when its app exists already, so that its keys are the ones of this
   * configuration from the start (an older version's, derived from the database, are deleted) and a
   * refusal is logged at start. A failure is logged, never thrown: the console's requests answer 503.
   */
  startIfPresent(): Promise<void>;
};

/**
 * The console at `/console`, built on its first request (so that a service nobody opens the
 * console of creates nothing) or at start when its app exists, and built again after a failed
 * start. Without the secrets it needs (consoleSecrets.ts) it is not built at all: one log line
 * says why, and its requests answer 503.
 */
export function consoleHandler(services: Services, options: ConsoleOptions): ConsoleHandler {
  const found = consoleSecrets(services.config);
  if ('refused' in found) options.logger.error(found.refused);
  else if (found.inMemory) options.logger.info('the operator console keeps its secret in memory (no TOKEN_KEY_ENCRYPTION_KEY): operators sign in again after a restart');
  const unavailable = (res: Response) => res.status(503).type('text/plain').send('The console could not be started; the reason is in the service log.');
  let built: Promise<Router> | undefined;
  // A refusal stands until someone acts (`console reset`): each request checks again, but its line is logged once a minute, not once a request.
  let lastRefusal = { message: '', at: 0 };
  const build = () => {
    if ('refused' in found) return Promise.reject(new ConsoleRefusal(found.refused));
    built ??= buildConsole(services, options, found.secrets).catch((error: unknown) => {
      built = undefined;
      if (!(error instanceof ConsoleRefusal)) options.logger.error({ err: error }, 'the console could not be started');
      else if (error.message !== lastRefusal.message || Date.now() - lastRefusal.at >= 60_000) {
        lastRefusal = { message: error.message, at: Date.now() };
        options.logger.error(error.message);
      }
      throw error;
    });
    return built;
  };
  const handler: RequestHandler = (req, res, next) => {
    if (!isConsolePath(req.path)) {
      next();
      return;
    }
    build().then(
      (router) => router(req, res, next),
      () => unavailable(res),
    );
  };
  return Object.assign(handler, {
    async startIfPresent() {
      if ('refused' in found || (await services.apps.reservedOf(CONSOLE_APP_ID)) === undefined) return;
      await build().catch(() => undefined);
    },
  });
}
