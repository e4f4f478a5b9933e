import { Router } from 'express';
import { z } from 'zod';
import { authOf } from '../http/middleware/authenticate';
import { mountRoute } from '../http/routing/mountRoute';
import { defineRoute, type RouteSpec } from '../http/routing/routeSpec';
import { addAuthenticatorsSchema, listAuthenticatorsQuerySchema, removeAuthenticatorsSchema } from '../services/authenticators/authenticatorLists';
import { routeAuthenticators } from './routeAuthenticators';
import { authenticatorListEntryAnswer } from './responseSchemas';
import type { Services } from '../services';

const onPlan = 'Only for apps that may use attestation (the enterprise plan or allowAttestation); others get 403 attestation_not_supported_on_plan.';

const listAuthenticatorsRoute = defineRoute({
  method: 'get',
  path: '/authenticators/list',
  operationId: 'listAuthenticators',
  summary: "The app's allow list (isAllowed=true) or block list (isAllowed=false) of authenticators, by AAGUID.",
  description: onPlan,
  tag: 'private API',
  auth: 'ApiSecret',
  scope: 'features',
  query: listAuthenticatorsQuerySchema,
  responses: { 200: { description: 'The list, oldest first.', schema: z.array(authenticatorListEntryAnswer) } },
});

const addAuthenticatorsRoute = defineRoute({
  method: 'post',
  path: '/authenticators/add',
  operationId: 'addAuthenticators',
  summary: 'Put authenticators (AAGUIDs the FIDO metadata knows) on the allow list or the block list, moving any already on the other.',
  description: onPlan,
  tag: 'private API',
  auth: 'ApiSecret',
  scope: 'features',
  body: addAuthenticatorsSchema,
  responses: { 204: { description: 'Added.' } },
});

const removeAuthenticatorsRoute = defineRoute({
  method: 'post',
  path: '/authenticators/remove',
  operationId: 'removeAuthenticators',
  summary: 'Take authenticators off whichever list holds them.',
  description: onPlan,
  tag: 'private API',
  auth: 'ApiSecret',
  scope: 'features',
  body: removeAuthenticatorsSchema,
  responses: { 204: { description: 'Removed.' } },
});
/** The routes this file declares, in the order the OpenAPI document lists them. */
export const authenticatorsRouteSpecs: readonly RouteSpec[] = [listAuthenticatorsRoute, addAuthenticatorsRoute, removeAuthenticatorsRoute];

/** The app's authenticator allow and block lists (ApiSecret). */
export function authenticatorRoutes(services: Services): Router {
  const router = Router();
  const auth = routeAuthenticators(services);
  const { authenticators } = services;

  mountRoute(router, auth, listAuthenticatorsRoute, async ({ query }, _req, res) => {
    res.json(await authenticators.list(authOf(res).appId, query.isAllowed));
  });

  mountRoute(router, auth, addAuthenticatorsRoute, async ({ body }, _req, res) => {
    await authenticators.add(authOf(res).appId, body);
    res.status(204).end();
  });

  mountRoute(router, auth, removeAuthenticatorsRoute, async ({ body }, _req, res) => {
    await authenticators.remove(authOf(res).appId, body);
    res.status(204).end();
  });
  return router;
}
