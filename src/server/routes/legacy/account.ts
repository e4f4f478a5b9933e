import { Router } from 'express';
import { authOf } from '../../http/middleware/authenticate';
import { mountRoute } from '../../http/routing/mountRoute';
import { routeAuthenticators } from '../routeAuthenticators';
import { defineRoute, type RouteSpec } from '../../http/routing/routeSpec';
import { deletionScheduleAnswer } from '../responseSchemas';
import type { Services } from '../../services';

const legacyAccountDeleteRoute = defineRoute({
  method: 'post',
  path: '/account/delete',
  operationId: 'v3AccountDelete',
  summary: "Schedule the app's deletion (no body); its admin is mailed a link that cancels it.",
  tag: 'private API',
  auth: 'ApiSecret',
  scope: 'account_delete',
  responses: { 200: { description: 'The schedule.', schema: deletionScheduleAnswer } },
});
/** The routes this file declares, in the order the OpenAPI document lists them. */
export const legacyAccountRouteSpecs: readonly RouteSpec[] = [legacyAccountDeleteRoute];

/**
 * `POST /v3/account/delete` (ApiSecret, no body): the app becomes pending deletion, its admin is
 * mailed a link that cancels it; keys freeze after 24 hours, data goes after 14 days.
 */
export function legacyAccountRoutes(services: Services): Router {
  const router = Router();
  const auth = routeAuthenticators(services);
  mountRoute(router, auth, legacyAccountDeleteRoute, async (_input, _req, res) => {
    const { appId, keyId } = authOf(res);
    const { message, keysFreezeAt, deleteAt } = await services.deletions.schedule(appId, `the API (secret key ...${keyId})`);
    res.json({ message, keysFreezeAt, deleteAt });
  });
  return router;
}
