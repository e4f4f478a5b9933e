import type { NextFunction, Request, RequestHandler, Response, Router } from 'express';
import { chain } from './chain';
import { routePathKey } from './routePathKey';

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
  handler: RequestHandler;
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
      const key = `${method.toUpperCase()} ${routePathKey(route.path)}`;
      if (table.has(key) || layers.slice(0, index).some((earlier) => takes(earlier, method, route.path))) continue;
      const dispatched = method === 'head' && !route.methods.head ? 'get' : method;
      const handlers = route.stack.filter((l) => l.method === undefined || l.method === dispatched).map((l) => l.handle as RequestHandler);
      table.set(key, { route, handler: chain(...handlers) });
    }
  });
  return table;
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
    const path = routePathKey(req.path);
    const entry = table.get(`${req.method} ${path.startsWith('/api/') ? path.slice(4) : path}`);
    if (!entry) {
      next();
      return;
    }
    // What the router sets, and what the metrics label a request by.
    req.route = entry.route;
    entry.handler(req, res, next);
  };
}
