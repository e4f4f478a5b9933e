import { Router } from 'express';
import { authOf } from '../http/middleware/authenticate';
import { listBody } from './listBody';
import { mountRoute } from '../http/routing/mountRoute';
import { routeAuthenticators } from './routeAuthenticators';
import { defineRoute, type RouteSpec } from '../http/routing/routeSpec';
import { credentialAnswer, listAnswer } from './responseSchemas';
import { deleteCredentialSchema, updateCredentialSchema, userIdSchema } from '../services/users/credentials';
import type { Services } from '../services';
import { userIdQuerySchema } from './alias';

const credentialList = { 200: { description: "The user's passkeys.", schema: listAnswer(credentialAnswer) } };

const listCredentialsRoute = defineRoute({
  method: 'get',
  path: '/credentials/list',
  operationId: 'listCredentials',
  summary: "A user's passkeys.",
  tag: 'private API',
  auth: 'ApiSecret',
  scope: 'credentials',
  query: userIdQuerySchema,
  responses: credentialList,
});

const listCredentialsByBodyRoute = defineRoute({
  method: 'post',
  path: '/credentials/list',
  operationId: 'listCredentialsByBody',
  summary: "A user's passkeys (the user id in the body).",
  tag: 'private API',
  auth: 'ApiSecret',
  scope: 'credentials',
  body: userIdSchema,
  responses: credentialList,
});

const deleteCredentialRoute = defineRoute({
  method: 'post',
  path: '/credentials/delete',
  operationId: 'deleteCredential',
  summary: "Delete one of the app's passkeys (an unknown id changes nothing).",
  tag: 'private API',
  auth: 'ApiSecret',
  scope: 'credentials',
  body: deleteCredentialSchema,
  responses: { 204: { description: 'Deleted, or there was no such passkey.' } },
});
const updateCredentialRoute = defineRoute({
  method: 'post',
  path: '/credentials/update',
  operationId: 'updateCredential',
  summary: "Rename one of the app's passkeys (its nickname, at most 64 characters). An extension: the reference service has no rename.",
  tag: 'private API',
  auth: 'ApiSecret',
  scope: 'credentials',
  body: updateCredentialSchema,
  responses: { 204: { description: 'Renamed.' } },
});

/** The routes this file declares, in the order the OpenAPI document lists them. */
export const credentialsRouteSpecs: readonly RouteSpec[] = [listCredentialsRoute, listCredentialsByBodyRoute, deleteCredentialRoute, updateCredentialRoute];

export function credentialRoutes(services: Services): Router {
  const router = Router();
  const auth = routeAuthenticators(services);

  const list = async (appId: string, userId: string) => listBody(services, appId, await services.credentials.list(appId, userId));

  mountRoute(router, auth, listCredentialsRoute, async ({ query }, _req, res) => {
    res.json(await list(authOf(res).appId, query.userId));
  });

  mountRoute(router, auth, listCredentialsByBodyRoute, async ({ body }, _req, res) => {
    res.json(await list(authOf(res).appId, body.userId));
  });

  mountRoute(router, auth, deleteCredentialRoute, async ({ body }, _req, res) => {
    await services.credentials.delete(authOf(res).appId, body.credentialId);
    res.status(204).end();
  });

  mountRoute(router, auth, updateCredentialRoute, async ({ body }, _req, res) => {
    await services.credentials.update(authOf(res).appId, body);
    res.status(204).end();
  });
  return router;
}
