import { Router } from 'express';
import { authOf } from '../http/middleware/authenticate';
import { mountRoute } from '../http/routing/mountRoute';
import { routeAuthenticators } from './routeAuthenticators';
import { defineRoute, type RouteSpec } from '../http/routing/routeSpec';
import { eventPageAnswer } from './responseSchemas';
import { eventsQuerySchema } from '../services/events/eventLog';
import type { Services } from '../services';

const listEventsRoute = defineRoute({
  method: 'get',
  path: '/events',
  operationId: 'listEvents',
  summary: "One page of the app's event log, newest first (when event logging is on).",
  description:
    'Either `pageNumber` (from 1, counted from the newest event, as the SDKs send it) or `after` (the `next` of the previous page, which continues ' +
    'after its last event at the same cost however deep the log) and `numberOfResults` (1..1000, default 100). `totalEventCount` is the whole log.',
  tag: 'private API',
  auth: 'ApiSecret',
  scope: 'events',
  query: eventsQuerySchema,
  responses: { 200: { description: 'The page and the total.', schema: eventPageAnswer } },
});
/** The routes this file declares, in the order the OpenAPI document lists them. */
export const eventsRouteSpecs: readonly RouteSpec[] = [listEventsRoute];

/** The app's event log (ApiSecret): `GET /events?pageNumber=&numberOfResults=`. */
export function eventRoutes(services: Services): Router {
  const router = Router();
  const auth = routeAuthenticators(services);
  mountRoute(router, auth, listEventsRoute, async ({ query }, _req, res) => {
    res.json(await services.events.page(authOf(res).appId, query));
  });
  return router;
}
