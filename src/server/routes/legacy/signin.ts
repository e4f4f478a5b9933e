import { Router } from 'express';
import { authOf } from '../../http/middleware/authenticate';
import { mountRoute } from '../../http/routing/mountRoute';
import { routeAuthenticators } from '../routeAuthenticators';
import { defineRoute, type RouteSpec } from '../../http/routing/routeSpec';
import { legacyVerificationAnswer } from '../responseSchemas';
import { verifyTokenSchema } from '../../services/ceremonies/verification';
import type { verificationResult } from '../../services/tokens/verifyTokens';
import type { Services } from '../../services';

/** The older generation's verification result: `username` where the current one has `userId`, and no `tokenId` or `type`. */
function legacyVerificationResult(result: ReturnType<typeof verificationResult>) {
  const { success, userId, tokenId: _tokenId, type: _type, ...rest } = result;
  return { success, username: userId, ...rest };
}

const legacySigninVerifyRoute = defineRoute({
  method: 'post',
  path: '/signin/verify',
  operationId: 'v3SigninVerify',
  summary: 'Verify a token; the result names the user as username.',
  tag: 'private API',
  auth: 'ApiSecret',
  scope: 'token_verify',
  body: verifyTokenSchema,
  responses: { 200: { description: 'Who signed in, where and how.', schema: legacyVerificationAnswer } },
});
/** The routes this file declares, in the order the OpenAPI document lists them. */
export const legacySigninRouteSpecs: readonly RouteSpec[] = [legacySigninVerifyRoute];

export function legacySigninRoutes(services: Services): Router {
  const router = Router();
  const auth = routeAuthenticators(services);
  mountRoute(router, auth, legacySigninVerifyRoute, async ({ body }, _req, res) => {
    const result = await services.verification.verify(authOf(res).appId, body);
    res.json(legacyVerificationResult(result));
  });
  return router;
}
