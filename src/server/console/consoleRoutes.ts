import express, { type Request, type Response, type Router } from 'express';
import { steppedUp } from '../../express/stepUp';
import { ApiError } from '../core/apiError';
import { CONSOLE_APP_ID } from './consoleAppId';
import type { ConsoleContext } from './consoleContext';
import { consolePathOf } from './consolePathOf';
import { requireSameOriginForm } from './consoleCsrf';
import { setNotice } from './consoleNotice';
import { sendConsoleProblem } from './sendConsoleProblem';
import type { Operator } from './operatorStore';

/** How long a step-up lets destructive actions through, in seconds. */
export const STEP_UP_MAX_AGE = 300;
export const STEP_UP_PURPOSE = 'step-up';

type Handler = (req: Request, res: Response, operator: Operator) => Promise<void>;

/** The path to come back to after a form: the form's own page when it is a console path, else the console's home. */
export function backPath(ctx: ConsoleContext, req: Request): string {
  return consolePathOf(ctx.base, req.body?._back);
}

/** What a page may do: read the signed-in operator, render, and record what it did. */
export interface ConsoleRoutes {
  /** A page (GET) for signed-in operators. */
  page(path: string, handler: Handler): void;
  /** A JSON answer (GET) for the pages' script, signed-in operators only. */
  json(path: string, handler: Handler): void;
  /**
   * A form post for signed-in operators: CSRF-checked, urlencoded; `stepUp` for destructive ones.
   * A service refusal (an ApiError) goes back to the form's page with its message; the handler
   * redirects (with a notice) or renders a page (a secret shown once).
   */
  action(path: string, options: { stepUp?: boolean }, handler: Handler): void;
  /**
   * A JSON post from a page's own script, for signed-in operators: the same checks as a form (this
   * origin, the session's token, sent as `X-Console-Csrf`), a JSON body of at most 8 KiB. A refusal
   * is answered as a problem (application/problem+json), never as a page.
   */
  jsonAction(path: string, handler: Handler): void;
  /**
   * Records what the operator did in the console app's log (and the service's own event, if any,
   * in the app's log, with the operator as performedBy: pass `by(operator)` to the service call).
   */
  record(operator: Operator, appId: string, message: string): void;
}

/** A body the JSON parser refused: the caller's mistake (4xx), said as a problem. */
function bodyProblem(error: unknown): ApiError | undefined {
  const { type, status } = (error ?? {}) as { type?: unknown; status?: unknown };
  if (type === 'entity.too.large') return new ApiError('payload_too_large', { detail: 'Console requests are limited to 8 KiB.' });
  if (typeof status === 'number' && status >= 400 && status < 500) return new ApiError('invalid_json', { detail: 'The request body could not be read as JSON.' });
  return undefined;
}

/** Who the event log says acted: the operator's email address. */
export const by = (operator: Operator): string => operator.email;

export function consoleRoutes(ctx: ConsoleContext, router: Router): ConsoleRoutes {
  const operatorOf = (req: Request) => req.user as Operator;
  const form = express.urlencoded({ extended: false, limit: '64kb', parameterLimit: 200 });
  const sameOrigin = requireSameOriginForm(ctx.origin);
  const jsonBody = express.json({ limit: '8kb', strict: true, type: () => true });
  const refuseWithoutStepUp = (req: Request) => {
    if (!steppedUp(req, STEP_UP_PURPOSE, operatorOf(req).id, STEP_UP_MAX_AGE, ctx.now())) throw new ApiError('console_step_up_required', { detail: 'Destructive actions need a passkey confirmation within the last five minutes.' });
  };
  return {
    page(path, handler) {
      router.get(path, (req, res, next) => {
        handler(req, res, operatorOf(req)).catch(next);
      });
    },
    json(path, handler) {
      router.get(path, (req, res, next) => {
        handler(req, res, operatorOf(req)).catch(next);
      });
    },
    action(path, options, handler) {
      router.post(path, form, sameOrigin, (req, res, next) => {
        const run = async () => {
          if (options.stepUp) refuseWithoutStepUp(req);
          await handler(req, res, operatorOf(req));
        };
        run().catch((error: unknown) => {
          if (error instanceof ApiError && error.status < 500 && !res.headersSent) {
            setNotice(req, { kind: 'error', text: error.detail ? `${error.message} ${error.detail}` : error.message });
            res.redirect(303, backPath(ctx, req));
          } else next(error);
        });
      });
    },
    jsonAction(path, handler) {
      router.post(path, (req, res, next) => {
        const fail = (error: unknown) => {
          if (res.headersSent) {
            next(error);
            return;
          }
          const problem = error instanceof ApiError ? error : bodyProblem(error);
          if (!problem || problem.status >= 500) ctx.logger.error({ err: error, path: req.path }, 'console request failed');
          const answer = problem && problem.status < 500 ? problem : new ApiError('internal_error');
          sendConsoleProblem(res, answer);
        };
        // The token first: a cross-site request is refused before its body is read.
        sameOrigin(req, res, (refused?: unknown) => {
          if (refused) return fail(refused);
          if (!req.is('application/json')) return fail(new ApiError('unsupported_media_type', { detail: "Send the body as JSON with 'Content-Type: application/json'." }));
          jsonBody(req, res, (unreadable?: unknown) => {
            if (unreadable) return fail(unreadable);
            handler(req, res, operatorOf(req)).catch(fail);
          });
        });
      });
    },
    record(operator, appId, message) {
      ctx.services.events.record(CONSOLE_APP_ID, { type: 'ConsoleActionPerformed', message: `${appId}: ${message}`.slice(0, 500), subject: appId, performedBy: by(operator) });
    },
  };
}
