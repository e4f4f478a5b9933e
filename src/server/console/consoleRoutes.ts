import express, { type Request, type Response, type Router } from 'express';
import { steppedUp } from '../../express/stepUp';
import { ApiError } from '../core/apiError';
import { CONSOLE_APP_ID } from './consoleAppId';
import type { ConsoleContext } from './consoleContext';
import { requireSameOriginForm } from './consoleCsrf';
import { setNotice } from './consoleNotice';
import type { Operator } from './operatorStore';

/** How long a step-up lets destructive actions through, in seconds. */
export const STEP_UP_MAX_AGE = 300;
export const STEP_UP_PURPOSE = 'step-up';

type Handler = (req: Request, res: Response, operator: Operator) => Promise<void>;

/** The path to come back to after a form: the form's own page when it is a console path, else the console's home. */
export function backPath(ctx: ConsoleContext, req: Request): string {
  const back = typeof req.body?._back === 'string' ? req.body._back : '';
  const safe = back.startsWith(`${ctx.base}/`) && !back.startsWith('//') && !/[\\\s]/.test(back) && !back.includes('//');
  return safe ? back : `${ctx.base}/apps`;
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
   * Records what the operator did in the console app's log (and the service's own event, if any,
   * in the app's log, with the operator as performedBy: pass `by(operator)` to the service call).
   */
  record(operator: Operator, appId: string, message: string): void;
}

/** Who the event log says acted: the operator's email address. */
export const by = (operator: Operator): string => operator.email;

export function consoleRoutes(ctx: ConsoleContext, router: Router): ConsoleRoutes {
  const operatorOf = (req: Request) => req.user as Operator;
  const form = express.urlencoded({ extended: false, limit: '64kb', parameterLimit: 200 });
  const sameOrigin = requireSameOriginForm(ctx.origin);
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
    record(operator, appId, message) {
      ctx.services.events.record(CONSOLE_APP_ID, { type: 'ConsoleActionPerformed', message: `${appId}: ${message}`.slice(0, 500), subject: appId, performedBy: by(operator) });
    },
  };
}
