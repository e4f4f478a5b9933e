import { Router } from 'express';
import { authOf } from '../http/middleware/authenticate';
import { mountRoute } from '../http/routing/mountRoute';
import { routeAuthenticators } from './routeAuthenticators';
import { defineRoute, type RouteSpec } from '../http/routing/routeSpec';
import { ceremonyOptionsAnswer, tokenAnswer } from './responseSchemas';
import { registerBeginSchema, registerCompleteSchema, registerTokenSchema } from '../services/ceremonies/registration';
import type { Services } from '../services';
import { clientContextOf } from '../http/requestContext';

const registerTokenRoute = defineRoute({
  method: 'post',
  path: '/register/token',
  operationId: 'registerToken',
  summary: 'Create a registration token for a user (your backend).',
  tag: 'private API',
  auth: 'ApiSecret',
  scope: 'token_register',
  body: registerTokenSchema,
  responses: { 200: { description: 'The register_ token for the browser client.', schema: tokenAnswer } },
});

const registerBeginRoute = defineRoute({
  method: 'post',
  path: '/register/begin',
  operationId: 'registerBegin',
  summary: 'Start a registration: WebAuthn creation options for a register_ token (browser client).',
  tag: 'public API',
  auth: 'ApiKey',
  scope: 'register',
  body: registerBeginSchema,
  responses: { 200: { description: 'Options for navigator.credentials.create and the session.', schema: ceremonyOptionsAnswer } },
});

const registerCompleteRoute = defineRoute({
  method: 'post',
  path: '/register/complete',
  operationId: 'registerComplete',
  summary: 'Finish a registration with the new credential (browser client).',
  tag: 'public API',
  auth: 'ApiKey',
  scope: 'register',
  body: registerCompleteSchema,
  responses: { 200: { description: 'A verify_ token for your backend to verify.', schema: tokenAnswer } },
});
/** The routes this file declares, in the order the OpenAPI document lists them. */
export const registerRouteSpecs: readonly RouteSpec[] = [registerTokenRoute, registerBeginRoute, registerCompleteRoute];

export function registerRoutes(services: Services): Router {
  const router = Router();
  const auth = routeAuthenticators(services);
  const { registration } = services;

  mountRoute(router, auth, registerTokenRoute, async ({ body }, _req, res) => {
    res.json({ token: await registration.createToken(authOf(res).appId, body) });
  });

  mountRoute(router, auth, registerBeginRoute, async ({ body }, _req, res) => {
    res.json(await registration.begin(authOf(res).appId, body));
  });

  mountRoute(router, auth, registerCompleteRoute, async ({ body }, req, res) => {
    res.json({ token: await registration.complete(authOf(res).appId, body, clientContextOf(req)) });
  });
  return router;
}
