import { Router } from 'express';
import { authOf } from '../http/middleware/authenticate';
import { mountRoute } from '../http/routing/mountRoute';
import { routeAuthenticators } from './routeAuthenticators';
import { defineRoute, type RouteSpec } from '../http/routing/routeSpec';
import { sendMagicLinkSchema } from '../services/magicLinks/magicLinks';
import type { Services } from '../services';

const sendMagicLinkRoute = defineRoute({
  method: 'post',
  path: '/magic-links/send',
  operationId: 'sendMagicLink',
  summary: 'Mail a sign-in link ($TOKEN in urlTemplate becomes a verify_ token).',
  tag: 'private API',
  auth: 'ApiSecret',
  scope: 'magic_links',
  body: sendMagicLinkSchema,
  responses: { 204: { description: 'The mail was handed to the mail server (or MAIL_FILE).' } },
});
/** The routes this file declares, in the order the OpenAPI document lists them. */
export const magicLinksRouteSpecs: readonly RouteSpec[] = [sendMagicLinkRoute];

export function magicLinkRoutes(services: Services): Router {
  const router = Router();
  const auth = routeAuthenticators(services);
  mountRoute(router, auth, sendMagicLinkRoute, async ({ body }, _req, res) => {
    await services.magicLinks.send(authOf(res).appId, body);
    res.status(204).end();
  });
  return router;
}
