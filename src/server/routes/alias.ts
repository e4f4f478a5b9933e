import { Router } from 'express';
import { z } from 'zod';
import { authOf } from '../http/middleware/authenticate';
import { listBody } from './listBody';
import { mountRoute } from '../http/routing/mountRoute';
import { routeAuthenticators } from './routeAuthenticators';
import { ciObject, customerUserId, looseBoolean } from '../core/validation';
import { defineRoute, type RouteSpec } from '../http/routing/routeSpec';
import { aliasAnswer, listAnswer } from './responseSchemas';
import { aliasListSchema } from '../services/users/aliases';
import type { Services } from '../services';

const setAliasesSchema = ciObject({
  userId: customerUserId(),
  aliases: aliasListSchema,
  hashing: z.preprocess((v) => (v === null ? undefined : v), looseBoolean().optional()),
});

// Query parameter names are as case-insensitive as body properties (the SDKs send `userid`).
const userIdQuerySchema = ciObject({ userId: z.string().min(1, 'is required') });

const setAliasesRoute = defineRoute({
  method: 'post',
  path: '/alias',
  operationId: 'setAliases',
  summary: "Replace a user's aliases (hashed unless hashing is false).",
  tag: 'private API',
  auth: 'ApiSecret',
  scope: 'aliases',
  body: setAliasesSchema,
  responses: { 204: { description: 'The aliases were replaced.' } },
});

const listAliasesRoute = defineRoute({
  method: 'get',
  path: '/alias/list',
  operationId: 'listAliases',
  summary: "A user's aliases.",
  tag: 'private API',
  auth: 'ApiSecret',
  scope: 'aliases',
  query: userIdQuerySchema,
  responses: { 200: { description: 'The aliases (hashed ones as their digest).', schema: listAnswer(aliasAnswer) } },
});
/** The routes this file declares, in the order the OpenAPI document lists them. */
export const aliasRouteSpecs: readonly RouteSpec[] = [setAliasesRoute, listAliasesRoute];

export function aliasRoutes(services: Services): Router {
  const router = Router();
  const auth = routeAuthenticators(services);

  mountRoute(router, auth, setAliasesRoute, async ({ body }, _req, res) => {
    await services.aliases.replace(authOf(res).appId, body.userId, body.aliases, body.hashing ?? true);
    res.status(204).end();
  });

  mountRoute(router, auth, listAliasesRoute, async ({ query }, _req, res) => {
    const appId = authOf(res).appId;
    res.json(await listBody(services, appId, await services.aliases.list(appId, query.userId)));
  });
  return router;
}

export { userIdQuerySchema };
