import { Router } from 'express';
import { z } from 'zod';
import { authOf } from '../http/middleware/authenticate';
import { mountRoute } from '../http/routing/mountRoute';
import { routeAuthenticators } from './routeAuthenticators';
import { defineRoute, type RouteSpec } from '../http/routing/routeSpec';
import { authConfigAnswer } from './responseSchemas';
import { addAuthConfigSchema, deleteAuthConfigSchema, editAuthConfigSchema, listAuthConfigsQuerySchema } from '../services/authConfigs';
import type { Services } from '../services';

const listAuthConfigsRoute = defineRoute({
  method: 'get',
  path: '/auth-configs/list',
  operationId: 'listAuthConfigs',
  summary: 'Authentication configurations (purposes), built-ins first; with purpose, that one or none.',
  tag: 'private API',
  auth: 'ApiSecret',
  scope: 'auth_configs',
  query: listAuthConfigsQuerySchema,
  responses: { 200: { description: 'The configurations.', schema: z.looseObject({ configurations: z.array(authConfigAnswer) }) } },
});

const addAuthConfigRoute = defineRoute({
  method: 'post',
  path: '/auth-configs/add',
  operationId: 'addAuthConfig',
  summary: 'Add an authentication configuration.',
  tag: 'private API',
  auth: 'ApiSecret',
  scope: 'auth_configs',
  body: addAuthConfigSchema,
  responses: { 201: { description: 'Added.' } },
});

const editAuthConfigRoute = defineRoute({
  method: 'post',
  path: '/auth-configs',
  operationId: 'editAuthConfig',
  summary: 'Change the fields of an authentication configuration it is given.',
  tag: 'private API',
  auth: 'ApiSecret',
  scope: 'auth_configs',
  body: editAuthConfigSchema,
  responses: { 204: { description: 'Changed.' } },
});

const deleteAuthConfigRoute = defineRoute({
  method: 'post',
  path: '/auth-configs/delete',
  operationId: 'deleteAuthConfig',
  summary: 'Delete an authentication configuration (not a built-in).',
  tag: 'private API',
  auth: 'ApiSecret',
  scope: 'auth_configs',
  body: deleteAuthConfigSchema,
  responses: { 204: { description: 'Deleted.' } },
});
/** The routes this file declares, in the order the OpenAPI document lists them. */
export const authConfigsRouteSpecs: readonly RouteSpec[] = [listAuthConfigsRoute, addAuthConfigRoute, editAuthConfigRoute, deleteAuthConfigRoute];

/** Authentication configurations (purposes), ApiSecret. */
export function authConfigRoutes(services: Services): Router {
  const router = Router();
  const auth = routeAuthenticators(services);
  const { authConfigs } = services;

  mountRoute(router, auth, listAuthConfigsRoute, async ({ query }, _req, res) => {
    res.json({ configurations: await authConfigs.list(authOf(res).appId, query.purpose || undefined) });
  });

  mountRoute(router, auth, addAuthConfigRoute, async ({ body }, _req, res) => {
    await authConfigs.add(authOf(res).appId, body);
    res.status(201).end();
  });

  mountRoute(router, auth, editAuthConfigRoute, async ({ body }, _req, res) => {
    await authConfigs.edit(authOf(res).appId, body);
    res.status(204).end();
  });

  mountRoute(router, auth, deleteAuthConfigRoute, async ({ body }, _req, res) => {
    await authConfigs.remove(authOf(res).appId, body);
    res.status(204).end();
  });
  return router;
}
