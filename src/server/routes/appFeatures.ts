import { Router } from 'express';
import { authOf } from '../http/middleware/authenticate';
import { mountRoute } from '../http/routing/mountRoute';
import { routeAuthenticators } from './routeAuthenticators';
import { defineRoute, type RouteSpec } from '../http/routing/routeSpec';
import { appFeaturesSchema } from '../services/apps/apps';
import type { Services } from '../services';

const setOwnFeaturesRoute = defineRoute({
  method: 'post',
  path: '/apps/features',
  operationId: 'setOwnFeatures',
  summary: "The app's own switches (changes what it is given).",
  tag: 'private API',
  auth: 'ApiSecret',
  scope: 'features',
  body: appFeaturesSchema,
  responses: { 204: { description: 'Changed.' } },
});
/** The routes this file declares, in the order the OpenAPI document lists them. */
export const appFeaturesRouteSpecs: readonly RouteSpec[] = [setOwnFeaturesRoute];

/** The app's own switches (ApiSecret): the reference's private `POST /apps/features`. */
export function appFeatureRoutes(services: Services): Router {
  const router = Router();
  const auth = routeAuthenticators(services);
  mountRoute(router, auth, setOwnFeaturesRoute, async ({ body }, _req, res) => {
    await services.apps.setOwnFeatures(authOf(res).appId, body);
    res.status(204).end();
  });
  return router;
}
