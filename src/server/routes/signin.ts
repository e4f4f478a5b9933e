import { Router } from 'express';
import { authOf } from '../http/middleware/authenticate';
import { mountRoute } from '../http/routing/mountRoute';
import { routeAuthenticators } from './routeAuthenticators';
import { defineRoute, type RouteSpec } from '../http/routing/routeSpec';
import { ceremonyOptionsAnswer, tokenAnswer, verificationAnswer } from './responseSchemas';
import { signinBeginSchema, signinCompleteSchema } from '../services/ceremonies/signin';
import { generateTokenSchema, verifyTokenSchema } from '../services/ceremonies/verification';
import type { Services } from '../services';
import { clientContextOf } from '../http/requestContext';

const signinBeginRoute = defineRoute({
  method: 'post',
  path: '/signin/begin',
  operationId: 'signinBegin',
  summary: 'Start a sign-in: WebAuthn request options for a user, an alias or a discoverable passkey (browser client).',
  tag: 'public API',
  auth: 'ApiKey',
  scope: 'login',
  body: signinBeginSchema,
  responses: { 200: { description: 'Options for navigator.credentials.get and the session.', schema: ceremonyOptionsAnswer } },
});

const signinCompleteRoute = defineRoute({
  method: 'post',
  path: '/signin/complete',
  operationId: 'signinComplete',
  summary: 'Finish a sign-in with the assertion (browser client).',
  tag: 'public API',
  auth: 'ApiKey',
  scope: 'login',
  body: signinCompleteSchema,
  responses: { 200: { description: 'A verify_ token for your backend to verify.', schema: tokenAnswer } },
});

const signinVerifyRoute = defineRoute({
  method: 'post',
  path: '/signin/verify',
  operationId: 'signinVerify',
  summary: 'Verify a token the browser client handed to your backend (single-use, except magic links).',
  tag: 'private API',
  auth: 'ApiSecret',
  scope: 'token_verify',
  body: verifyTokenSchema,
  responses: { 200: { description: 'Who signed in, where and how.', schema: verificationAnswer } },
});

const signinGenerateTokenRoute = defineRoute({
  method: 'post',
  path: '/signin/generate-token',
  operationId: 'signinGenerateToken',
  summary: 'Mint a sign-in token for a user without a ceremony (when the app enabled it).',
  tag: 'private API',
  auth: 'ApiSecret',
  scope: 'token_generate',
  body: generateTokenSchema,
  responses: { 200: { description: 'A verify_ token.', schema: tokenAnswer } },
});
/** The routes this file declares, in the order the OpenAPI document lists them. */
export const signinRouteSpecs: readonly RouteSpec[] = [signinBeginRoute, signinCompleteRoute, signinVerifyRoute, signinGenerateTokenRoute];

export function signinRoutes(services: Services): Router {
  const router = Router();
  const auth = routeAuthenticators(services);
  const { signin, verification } = services;

  mountRoute(router, auth, signinBeginRoute, async ({ body }, _req, res) => {
    res.json(await signin.begin(authOf(res).appId, body));
  });

  mountRoute(router, auth, signinCompleteRoute, async ({ body }, req, res) => {
    res.json({ token: await signin.complete(authOf(res).appId, body, clientContextOf(req)) });
  });

  mountRoute(router, auth, signinVerifyRoute, async ({ body }, _req, res) => {
    res.json(await verification.verify(authOf(res).appId, body));
  });

  mountRoute(router, auth, signinGenerateTokenRoute, async ({ body }, _req, res) => {
    res.json({ token: await verification.generate(authOf(res).appId, body) });
  });
  return router;
}
