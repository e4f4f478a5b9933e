import { Router } from 'express';
import { authOf } from '../../http/middleware/authenticate';
import { listBody } from '../listBody';
import { mountRoute } from '../../http/routing/mountRoute';
import { routeAuthenticators } from '../routeAuthenticators';
import { defineRoute, type RouteSpec } from '../../http/routing/routeSpec';
import { legacyCredentialAnswer, listAnswer } from '../responseSchemas';
import { deleteCredentialSchema, userIdSchema } from '../../services/users/credentials';
import type { Services } from '../../services';

const legacyListCredentialsRoute = defineRoute({
  method: 'post',
  path: '/credentials/list',
  operationId: 'v3ListCredentials',
  summary: "A user's passkeys, each with credType (POST only in this generation).",
  tag: 'private API',
  auth: 'ApiSecret',
  scope: 'credentials',
  body: userIdSchema,
  responses: { 200: { description: "The user's passkeys.", schema: listAnswer(legacyCredentialAnswer) } },
});

const legacyDeleteCredentialRoute = defineRoute({
  method: 'post',
  path: '/credentials/delete',
  operationId: 'v3DeleteCredential',
  summary: "Delete one of the app's passkeys (answers 200 with an empty body in this generation).",
  tag: 'private API',
  auth: 'ApiSecret',
  scope: 'credentials',
  body: deleteCredentialSchema,
  responses: { 200: { description: 'Deleted, or there was no such passkey.' } },
});
/** The routes this file declares, in the order the OpenAPI document lists them. */
export const legacyCredentialsRouteSpecs: readonly RouteSpec[] = [legacyListCredentialsRoute, legacyDeleteCredentialRoute];

/**
 * The older generation's credentials: the list is POST only (a GET is a 405, see ./index.ts) and
 * each credential also carries `credType` (its attestation format, `none` for most passkeys);
 * delete takes `CredentialId` in any case, as today, and answers 200.
 */
export function legacyCredentialRoutes(services: Services): Router {
  const router = Router();
  const auth = routeAuthenticators(services);

  mountRoute(router, auth, legacyListCredentialsRoute, async ({ body }, _req, res) => {
    const { appId } = authOf(res);
    const credentials = (await services.credentials.list(appId, body.userId)).map((c) => ({ ...c, credType: c.attestationFmt }));
    res.json(await listBody(services, appId, credentials));
  });

  mountRoute(router, auth, legacyDeleteCredentialRoute, async ({ body }, _req, res) => {
    await services.credentials.delete(authOf(res).appId, body.credentialId);
    res.status(200).end();
  });
  return router;
}
