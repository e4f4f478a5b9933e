import { createHmac } from 'node:crypto';
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
import { consoleHeaders } from './consoleHeaders';
import { consoleRoutes } from './consoleRoutes';
import { ensureConsoleApp } from './ensureConsoleApp';
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

/** Whether a request path is the console's: `/console` or under it. */
export const isConsolePath = (path: string): boolean => path === CONSOLE_BASE || path.startsWith(`${CONSOLE_BASE}/`);

/** A plain page for a refusal or a failure, in the console's look (no operator: nothing of the session is needed). */
function problemPage(ctx: ConsoleContext, req: Request, res: Response, status: number, title: string, detail?: string): void {
  res.status(status).type('html').send(layout(ctx, req, { title, body: html`${detail && html`<p>${detail}</p>`}<p><a href="${ctx.base}/apps">Back to the console</a></p>` }));
}

/** The status body-parser gave an error it raised (`entity.too.large`, `parameters.too.many`, …), if it is one. */
function bodyParserStatus(error: unknown): number | undefined {
  const { type, status } = (error ?? {}) as { type?: unknown; status?: unknown };
  return typeof type === 'string' && typeof status === 'number' && status >= 400 && status < 500 ? status : undefined;
}

async function buildConsole(services: Services, options: ConsoleOptions): Promise<Router> {
  const { config } = services;
  const publicUrl = config.publicUrl;
  const url = new URL(publicUrl);
  if (url.pathname !== '/' && url.pathname !== '') throw new Error('the console needs PUBLIC_URL without a path (it is served at PUBLIC_URL/console)');
  const origin = url.origin;
  const now = options.now ?? Date.now;
  const keys = await ensureConsoleApp(services, { origin });
  const seed = await services.tokens.decoyKeyOf(CONSOLE_APP_ID);
  const store = consoleSessionStore({ redis: services.redis, keyPrefix: config.redisKeyPrefix, idleMs: config.console.idleMs, now });
  const passport = new Passport();
  const operators = new OperatorStore(services);
  const secure = url.protocol === 'https:';
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
    sessionCookieName: secure ? '__Host-console' : 'console',
    exposeConfig: true,
    serveBrowserModule: `${CONSOLE_BASE}/passwordless-browser`,
    // The middleware's own routes under /console, but for sign-up, the doctor and the password upgrade, which the console has no use for.
    paths: Object.fromEntries(
      Object.entries(DEFAULT_PATHS).map(([name, path]) => [name, path === null || UNUSED_PATHS.has(name) ? null : `${CONSOLE_BASE}${path}`]),
    ) as Partial<PasswordlessPaths>,
    now,
    logger: { error: (details, message) => options.logger.error(details, message), warn: (details, message) => options.logger.warn(details, message) },
  });
  const ctx: ConsoleContext = { services, auth, base: CONSOLE_BASE, publicUrl, origin, now, logger: options.logger };

  const router = express.Router();
  router.use(consoleHeaders);
  router.use(consoleAssets(CONSOLE_BASE));
  router.use(
    session({
      name: secure ? '__Host-console' : 'console',
      // Signs the cookie; derived from the console app's own secret, so that nothing more is stored and every replica agrees.
      secret: createHmac('sha256', seed).update('console session cookie').digest('base64url'),
      store,
      resave: false,
      saveUninitialized: false,
      // Every request moves the expiry: the session ends after CONSOLE_IDLE_MINUTES without one.
      rolling: true,
      proxy: config.trustProxy !== false,
      cookie: { httpOnly: true, sameSite: 'strict', secure, path: secure ? '/' : CONSOLE_BASE, maxAge: config.console.idleMs },
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

/**
 * The console at `/console`, built on its first request (so that a service nobody opens the
 * console of creates nothing), and built again after a failed start.
 */
export function consoleHandler(services: Services, options: ConsoleOptions): RequestHandler {
  let built: Promise<Router> | undefined;
  return (req, res, next) => {
    if (!isConsolePath(req.path)) {
      next();
      return;
    }
    built ??= buildConsole(services, options).catch((error: unknown) => {
      built = undefined;
      throw error;
    });
    built.then(
      (router) => router(req, res, next),
      (error: unknown) => {
        options.logger.error({ err: error }, 'the console could not be started');
        res.status(503).type('text/plain').send('The console could not be started; the reason is in the service log.');
      },
    );
  };
}
