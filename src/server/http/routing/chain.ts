import type { NextFunction, Request, RequestHandler, Response } from 'express';

/**
 * Handlers run one after another as Express runs a layer's (each may call next, throw, or return
 * a promise that rejects), as one handler: one router layer to pass instead of one per handler.
 * `next('route')` and `next('router')` skip within a router, which a chain is not part of: they
 * are refused as errors rather than misread.
 */
export function chain(...handlers: RequestHandler[]): RequestHandler {
  return (req: Request, res: Response, done: NextFunction) => {
    let index = 0;
    const next: NextFunction = (error?: unknown) => {
      if (error === 'route' || error === 'router') {
        done(new Error(`next('${error}') is not supported inside a handler chain`));
        return;
      }
      // As in Express, any falsy value (next(null) from a Node-style callback) is no error.
      if (error || index === handlers.length) {
        done(error || undefined);
        return;
      }
      const handler = handlers[index++];
      try {
        const result: unknown = handler(req, res, next);
        if (result instanceof Promise) result.catch((rejection: unknown) => next(rejection || new Error('rejected promise')));
      } catch (thrown) {
        next(thrown);
      }
    };
    next();
  };
}
