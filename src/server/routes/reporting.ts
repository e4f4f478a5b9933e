import { Router } from 'express';
import { z } from 'zod';
import { authOf } from '../http/middleware/authenticate';
import { mountRoute } from '../http/routing/mountRoute';
import { defineRoute, type RouteSpec } from '../http/routing/routeSpec';
import { periodQuerySchema } from '../services/reporting/dailyReports';
import { routeAuthenticators } from './routeAuthenticators';
import { activeUsersReportAnswer, credentialsReportAnswer } from './responseSchemas';
import type { Services } from '../services';

const period = 'One entry per UTC day the service took a snapshot of the app, oldest first; `from` and `to` (yyyy-MM-dd) are optional and inclusive.';

const credentialsReportRoute = defineRoute({
  method: 'get',
  path: '/reporting/credentials/periodic',
  operationId: 'credentialsReport',
  summary: "The app's users and passkeys, day by day.",
  description: period,
  tag: 'private API',
  auth: 'ApiSecret',
  scope: 'users',
  query: periodQuerySchema,
  responses: { 200: { description: 'The days.', schema: z.array(credentialsReportAnswer) } },
});

const activeUsersReportRoute = defineRoute({
  method: 'get',
  path: '/reporting/active-users/periodic',
  operationId: 'activeUsersReport',
  summary: "The app's daily and weekly active users and its total users, day by day.",
  description: period,
  tag: 'private API',
  auth: 'ApiSecret',
  scope: 'users',
  query: periodQuerySchema,
  responses: { 200: { description: 'The days.', schema: z.array(activeUsersReportAnswer) } },
});
/** The routes this file declares, in the order the OpenAPI document lists them. */
export const reportingRouteSpecs: readonly RouteSpec[] = [credentialsReportRoute, activeUsersReportRoute];

/** The app's daily reports (ApiSecret). */
export function reportingRoutes(services: Services): Router {
  const router = Router();
  const auth = routeAuthenticators(services);
  const { reports } = services;

  mountRoute(router, auth, credentialsReportRoute, async ({ query }, _req, res) => {
    res.json(await reports.credentials(authOf(res).appId, query));
  });

  mountRoute(router, auth, activeUsersReportRoute, async ({ query }, _req, res) => {
    res.json(await reports.activeUsersReport(authOf(res).appId, query));
  });
  return router;
}
