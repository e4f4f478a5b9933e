import type { NextFunction, Request, RequestHandler, Response, Router } from 'express';

// The parts of Express 5's router (router 2.x) that the table reads, as methodNotAllowed does.
interface RouteLayer {
  method?: string;
  handle: (req: Request, res: Response, next: NextFunction) => unknown;
}
interface ExpressRoute {
  path: string;
  methods: Record<string, boolean>;
  stack: RouteLayer[];
}
interface LayerLike {
  route?: ExpressRoute;
  handle?: { stack?: LayerLike[] };
  /** A `use` layer at `/`, which hands every path on unchanged. */
  slash?: boolean;
  match(path: string): unknown;
}

interface Entry {
  route: ExpressRoute;
  handlers: RouteLayer['handle'][];
}

/** The layers a request meets in order, sub-routers mounted at `/` flattened; anything else stays one opaque layer. */
function flatten(stack: LayerLike[]): LayerLike[] {
  return stack.flatMap((layer) => (!layer.route && layer.slash && layer.handle?.stack ? flatten(layer.handle.stack) : [layer]));
}

/** Whether Express would hand a `method` request for `path` to `layer` (a HEAD goes to a GET route). */
function takes(layer: LayerLike, method: string, path: string): boolean {
  if (!layer.match(path)) return false;
  if (!layer.route) return true;
  const { methods } = layer.route;
  return Boolean(methods._all || methods[method] || (method === 'head' && methods.get));
}

/** Lower case, one trailing slash dropped: how Express compares a path with a route's (repeated slashes are already merged). */
function normalise(path: string): string {
  const lower = path.toLowerCase();
  return lower.length > 1 && lower.endsWith('/') ? lower.slice(0, -1) : lower;
}

const STATIC = /^[/\w.-]+$/;

/** Fixed-path routes, keyed by `METHOD path`, only where the first layer Express would pick is that route itself. */
function buildTable(router: Router): Map<string, Entry> {
  const layers = flatten((router as unknown as { stack: LayerLike[] }).stack);
  const table = new Map<string, Entry>();
  layers.forEach((layer, index) => {
    const route = layer.route;
    if (!route || typeof route.path !== 'string' || !STATIC.test(route.path)) return;
    // An error handler inside a route would need Express's error dispatch: leave such a route to Express.
    if (route.stack.some((l) => l.handle.length === 4)) return;
    const methods = Object.keys(route.methods).filter((m) => m !== '_all');
    if (route.methods.get && !route.methods.head) methods.push('head');
    for (const method of methods) {
      const key = `${method.toUpperCase()} ${normalise(route.path)}`;
      if (table.has(key) || layers.slice(0, index).some((earlier) => takes(earlier, method, route.path))) continue;
      const dispatched = method === 'head' && !route.methods.head ? 'get' : method;
      table.set(key, { route, handlers: route.stack.filter((l) => l.method === undefined || l.method === dispatched).map((l) => l.handle) });
    }
  });
  return table;
}

/** Runs a route's handlers as Express does: each may call next, throw, or return a promise that rejects. */
function runHandlers(handlers: Entry['handlers'], req: Request, res: Response, done: NextFunction): void {
  let index = 0;
  const next: NextFunction = (error?: unknown) => {
    if (error === 'route' || error === 'router') {
      done(new Error(`next('${error}') is not supported on a route of the static table`));
      return;
    }
    if (error !== undefined || index === handlers.length) {
      done(error);
      return;
    }
    const handler = handlers[index++];
    try {
      const result = handler(req, res, next);
      if (result instanceof Promise) result.catch((rejection: unknown) => next(rejection ?? new Error('rejected promise')));
    } catch (thrown) {
      next(thrown);
    }
  };
  next();
}

/**
 * The routes of `router` with fixed paths (nearly every request), found by one Map lookup at `/`
 * and under `/api` instead of matching the path against each layer of each router in turn. A
 * route is only in the table where Express would hand the request to that same route first
 * (no earlier layer takes its path and method); everything else (paths with parameters, other
 * methods, misses) goes on to the router as before.
 */
export function staticRoutes(router: Router): RequestHandler {
  const table = buildTable(router);
  return (req, res, next) => {
    const path = normalise(req.path);
    const entry = table.get(`${req.method} ${path.startsWith('/api/') ? path.slice(4) : path}`);
    if (!entry) {
      next();
      return;
    }
    // What the router sets, and what the metrics label a request by.
    req.route = entry.route;
    runHandlers(entry.handlers, req, res, next);
  };
}
