import { Router } from 'express';
import { z } from 'zod';
import { authOf } from '../http/middleware/authenticate';
import { listBody } from './listBody';
import { mountRoute } from '../http/routing/mountRoute';
import { routeAuthenticators } from './routeAuthenticators';
import { defineRoute, type RouteSpec } from '../http/routing/routeSpec';
import { listAnswer, userSummaryAnswer } from './responseSchemas';
import { userIdSchema } from '../services/users/credentials';
import type { Services } from '../services';

const listUsersRoute = defineRoute({
  method: 'get',
  path: '/users/list',
  operationId: 'listUsers',
  summary: "The app's users (every userId with a passkey or an alias).",
  tag: 'private API',
  auth: 'ApiSecret',
  scope: 'users',
  responses: { 200: { description: 'The users.', schema: listAnswer(userSummaryAnswer) } },
});

const countUsersRoute = defineRoute({
  method: 'get',
  path: '/users/count',
  operationId: 'countUsers',
  summary: "How many users the app has.",
  tag: 'private API',
  auth: 'ApiSecret',
  scope: 'users',
  responses: { 200: { description: 'The count.', schema: z.looseObject({ count: z.number().int() }) } },
});

const deleteUserRoute = defineRoute({
  method: 'post',
  path: '/users/delete',
  operationId: 'deleteUser',
  summary: 'Delete a user: their passkeys and aliases.',
  tag: 'private API',
  auth: 'ApiSecret',
  scope: 'users',
  body: userIdSchema,
  responses: { 204: { description: 'Deleted.' } },
});
/** The routes this file declares, in the order the OpenAPI document lists them. */
export const usersRouteSpecs: readonly RouteSpec[] = [listUsersRoute, countUsersRoute, deleteUserRoute];

export function userRoutes(services: Services): Router {
  const router = Router();
  const auth = routeAuthenticators(services);

  mountRoute(router, auth, listUsersRoute, async (_input, _req, res) => {
    const appId = authOf(res).appId;
    res.json(await listBody(services, appId, await services.users.list(appId)));
  });

  mountRoute(router, auth, countUsersRoute, async (_input, _req, res) => {
    res.json({ count: await services.users.count(authOf(res).appId) });
  });

  mountRoute(router, auth, deleteUserRoute, async ({ body }, _req, res) => {
    await services.users.delete(authOf(res).appId, body.userId);
    res.status(204).end();
  });
  return router;
}
