import type { RequestHandler, Router } from 'express';
import { ApiError } from '../../core/apiError';

// The parts of Express 5's router that tell which methods a path answers.
interface LayerLike {
  route?: { methods: Record<string, boolean> };
  handle?: { stack?: LayerLike[] };
  match(path: string): unknown;
}

function collectMethods(stack: LayerLike[], path: string, into: Set<string>): Set<string> {
  for (const layer of stack) {
    if (!layer.match(path)) continue;
    if (layer.route) for (const method of Object.keys(layer.route.methods)) if (method !== '_all') into.add(method.toUpperCase());
    if (layer.handle?.stack) collectMethods(layer.handle.stack, path, into);
  }
  return into;
}

/** A known path asked with the wrong method: 405 with `Allow`, rather than a misleading 404. */
export function methodNotAllowed(router: Router): RequestHandler {
  const stack = (router as unknown as { stack: LayerLike[] }).stack;
  return (req, _res, next) => {
    const methods = collectMethods(stack, req.path, new Set());
    if (methods.size === 0) {
      next();
      return;
    }
    if (methods.has('GET')) methods.add('HEAD');
    const allow = [...methods].sort().join(', ');
    next(new ApiError('method_not_allowed', { detail: `${req.path.slice(0, 200)} answers ${allow}.`, headers: { Allow: allow } }));
  };
}
