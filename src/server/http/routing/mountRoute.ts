import type { Request, RequestHandler, Response, Router } from 'express';
import type { z } from 'zod';
import type { RouteSpec } from './routeSpec';
import { requireKey, requireManagementKey, type KeyChecker } from '../middleware/authenticate';
import { parseWith } from '../../core/validation';
import { refuseReservedAppId } from '../../core/reservedAppId';

type Parsed<S> = S extends z.ZodType ? z.output<S> : undefined;

export interface RouteInput<P, Q, B> {
  params: Parsed<P>;
  query: Parsed<Q>;
  body: Parsed<B>;
}

export type RouteHandler<P, Q, B> = (input: RouteInput<P, Q, B>, req: Request, res: Response) => Promise<void> | void;

/** What a route's authentication needs: the key checker, and MANAGEMENT_KEY (unset refuses the management API). */
export interface RouteAuthenticators {
  keys: KeyChecker;
  managementKey: string | undefined;
}

function authenticationOf(spec: RouteSpec, auth: RouteAuthenticators): RequestHandler[] {
  if (spec.auth === undefined) return [];
  if (spec.auth === 'ManagementKey') return [requireManagementKey(auth.managementKey)];
  // Least privilege is not optional: an app's key route without a scope would admit every key of its kind.
  if (spec.scope === undefined) throw new Error(`${spec.method.toUpperCase()} ${spec.path} takes an ${spec.auth} but declares no scope (see SCOPES in services/apps/apiKeys.ts)`);
  return [requireKey(auth.keys, spec.auth, spec.scope)];
}

/** `read` is only called when there is a schema: `req.query` is parsed anew on every read. */
const parseIf = (schema: z.ZodType | undefined, read: () => unknown, storable = true) => (schema === undefined ? undefined : parseWith(schema, read(), { storable }));

export interface MountOptions {
  /** Middleware that runs before the key check (a per-route rate limit, say). */
  before?: RequestHandler[];
  /** The handler answers for the reserved app id itself (`available`: not available) rather than being refused. */
  answersReservedAppId?: boolean;
}

/**
 * Mounts `spec` on `router`: its key check, then its params, query and body parsed with its own
 * schemas (a 400 validation problem otherwise), then `handler` with the parsed input. A management
 * route given the console's reserved app id (`pwlconsole`) is refused (403 `app_id_reserved`)
 * after the key check: no management route creates, keys, changes or reads that app.
 */
export function mountRoute<P extends z.ZodType | undefined, Q extends z.ZodType | undefined, B extends z.ZodType | undefined>(
  router: Router,
  auth: RouteAuthenticators,
  spec: RouteSpec<P, Q, B>,
  handler: RouteHandler<P, Q, B>,
  options: MountOptions = {},
): void {
  // Not async itself: a synchronous handler (the plain health check) costs no promise; Express 5
  // catches a synchronous throw and a rejected promise alike.
  const refusesReservedAppId = spec.auth === 'ManagementKey' && spec.path.includes(':appId') && !options.answersReservedAppId;
  const run: RequestHandler = (req, res) => {
    if (refusesReservedAppId) refuseReservedAppId(String(req.params.appId));
    const input = {
      // Path ids are only looked up: one no app can have is the services' not-found, as before.
      params: parseIf(spec.params, () => req.params, false),
      query: parseIf(spec.query, () => req.query),
      body: parseIf(spec.body, () => req.body),
    } as RouteInput<P, Q, B>;
    return handler(input, req, res);
  };
  router[spec.method](spec.path, ...(options.before ?? []), ...authenticationOf(spec, auth), run);
}
