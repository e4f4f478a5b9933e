import { Router } from 'express';
import { z } from 'zod';
import { authOf } from '../http/middleware/authenticate';
import { mountRoute } from '../http/routing/mountRoute';
import { streamJsonList } from '../http/streamJsonList';
import { routeAuthenticators } from './routeAuthenticators';
import { defineRoute, type RouteSpec } from '../http/routing/routeSpec';
import { listAnswer, pageAnswer, userSummaryAnswer } from './responseSchemas';
import { userIdSchema } from '../services/users/credentials';
import { MAX_USERS_PAGE, usersListQuerySchema } from '../services/users/users';
import type { Services } from '../services';

const listUsersRoute = defineRoute({
  method: 'get',
  path: '/users/list',
  operationId: 'listUsers',
  summary: "The app's users (every userId with a passkey or an alias), in the order of their userId.",
  description:
    `Without \`limit\` or \`after\`, every user (streamed; a bare array, or \`{values}\` with \`sdkCompatibleLists\`). With either, one page of at most \`limit\` ` +
    `(1..${MAX_USERS_PAGE}, default ${MAX_USERS_PAGE}) users as \`{values, next}\`: pass \`next\` as \`after\` for the following page; it is null after the last.`,
  tag: 'private API',
  auth: 'ApiSecret',
  scope: 'users',
  query: usersListQuerySchema,
  responses: { 200: { description: 'The users, or one page of them.', schema: z.union([pageAnswer(userSummaryAnswer), listAnswer(userSummaryAnswer)]) } },
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

  mountRoute(router, auth, listUsersRoute, async ({ query }, _req, res) => {
    const appId = authOf(res).appId;
    if (query.limit !== undefined || query.after !== undefined) {
      res.json(await services.users.page(appId, query.after, query.limit));
      return;
    }
    // Every user, as the SDKs read it, streamed a page at a time: memory does not grow with the app.
    const { sdkCompatibleLists } = await services.features.get(appId);
    await streamJsonList(res, services.users.pages(appId), sdkCompatibleLists ? { before: '{"values":', after: '}' } : undefined);
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
