import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { chain } from './chain';

const req = {} as Request;
const res = {} as Response;

/** Runs `handler` and resolves with what it passed on to the next layer (`{ passed: undefined }` for a plain next()). */
function run(handler: RequestHandler): Promise<{ passed: unknown }> {
  return new Promise((resolve) => {
    handler(req, res, ((error?: unknown) => resolve({ passed: error })) as NextFunction);
  });
}

/** A handler that records `name` in `seen` and calls next(). */
const step =
  (seen: string[], name: string): RequestHandler =>
  (_req, _res, next) => {
    seen.push(name);
    next();
  };

describe('chain', () => {
  it('runs the handlers in order, then passes on with no error', async () => {
    const seen: string[] = [];
    expect(await run(chain(step(seen, 'a'), step(seen, 'b'), step(seen, 'c')))).toEqual({ passed: undefined });
    expect(seen).toEqual(['a', 'b', 'c']);
  });

  it('hands each handler the same request and response', async () => {
    const got: [Request, Response][] = [];
    const record: RequestHandler = (r, s, next) => {
      got.push([r, s]);
      next();
    };
    await run(chain(record, record));
    expect(got).toHaveLength(2);
    for (const [r, s] of got) expect([r === req, s === res]).toEqual([true, true]);
  });

  it('waits for a handler that calls next later, as after I/O', async () => {
    const seen: string[] = [];
    const later: RequestHandler = (_req, _res, next) => {
      setImmediate(() => {
        seen.push('later');
        next();
      });
    };
    expect(await run(chain(later, step(seen, 'after')))).toEqual({ passed: undefined });
    expect(seen).toEqual(['later', 'after']);
  });

  it('stops when a handler answers without calling next', () => {
    const seen: string[] = [];
    let passedOn = false;
    const answers: RequestHandler = () => {
      seen.push('answers');
    };
    chain(answers, step(seen, 'never'))(req, res, () => (passedOn = true));
    expect({ seen, passedOn }).toEqual({ seen: ['answers'], passedOn: false });
  });

  it('passes next(error) on and skips the handlers after it', async () => {
    const seen: string[] = [];
    const failure = new Error('refused');
    const fails: RequestHandler = (_req, _res, next) => next(failure);
    expect(await run(chain(step(seen, 'a'), fails, step(seen, 'never')))).toEqual({ passed: failure });
    expect(seen).toEqual(['a']);
  });

  it('passes a thrown error on and skips the handlers after it', async () => {
    const seen: string[] = [];
    const failure = new Error('thrown');
    const throws: RequestHandler = () => {
      throw failure;
    };
    expect((await run(chain(throws, step(seen, 'never')))).passed).toBe(failure);
    expect(seen).toEqual([]);
  });

  it("passes a returned promise's rejection on", async () => {
    const seen: string[] = [];
    const failure = new Error('rejected');
    const rejects: RequestHandler = async () => {
      await Promise.resolve();
      throw failure;
    };
    expect((await run(chain(rejects, step(seen, 'never')))).passed).toBe(failure);
    expect(seen).toEqual([]);
  });

  it('turns a promise rejected with nothing into an error, so that the request still fails', async () => {
    const rejectsEmpty: RequestHandler = () => Promise.reject(undefined) as unknown as void;
    const { passed } = await run(chain(rejectsEmpty));
    expect(passed).toBeInstanceOf(Error);
  });

  it('an async handler that resolves after calling next does not pass on twice', async () => {
    const passes: unknown[] = [];
    const asyncStep: RequestHandler = async (_req, _res, next) => {
      await Promise.resolve();
      next();
    };
    chain(asyncStep, asyncStep)(req, res, (error?: unknown) => passes.push(error));
    await new Promise((resolve) => setImmediate(resolve));
    expect(passes).toEqual([undefined]);
  });

  it.each(['route', 'router'])("refuses next('%s') as an error instead of skipping", async (signal) => {
    const seen: string[] = [];
    const skips: RequestHandler = (_req, _res, next) => next(signal);
    const { passed } = await run(chain(skips, step(seen, 'never')));
    expect(passed).toBeInstanceOf(Error);
    expect((passed as Error).message).toContain(`next('${signal}')`);
    expect(seen).toEqual([]);
  });

  it.each([null, false, 0, ''])('takes next(%p) as no error and goes on, as Express does', async (falsy) => {
    const seen: string[] = [];
    const callback: RequestHandler = (_req, _res, next) => next(falsy);
    expect(await run(chain(callback, step(seen, 'after')))).toEqual({ passed: undefined });
    expect(seen).toEqual(['after']);
  });

  it('turns a promise rejected with false into an error, as Express 5 does', async () => {
    const rejectsFalse: RequestHandler = () => Promise.reject(false) as unknown as void;
    const { passed } = await run(chain(rejectsFalse));
    expect(passed).toBeInstanceOf(Error);
  });

  it('with no handlers, passes straight on', async () => {
    expect(await run(chain())).toEqual({ passed: undefined });
  });
});
