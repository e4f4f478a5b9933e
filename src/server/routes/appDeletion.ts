import { Router, type Response } from 'express';
import { z } from 'zod';
import { mountRoute } from '../http/routing/mountRoute';
import { routeAuthenticators } from './routeAuthenticators';
import { unstorable } from '../core/validation';
import { defineRoute, type RouteSpec } from '../http/routing/routeSpec';
import { escapeHtml } from '../core/escapeHtml';
import type { Services } from '../services';

/** `?token=`: whatever was sent; a missing or odd one is simply an invalid link (an HTML page, not a problem). */
const abortLinkQuerySchema = z.object({
  token: z
    .string()
    .max(4096)
    .refine((v) => unstorable(v) === undefined)
    .optional()
    .catch(undefined),
});

const abortDeletionRoute = defineRoute({
  method: 'get',
  path: '/apps/delete/cancel/:appId',
  operationId: 'abortAppDeletion',
  summary: "The abort link of an account-deletion warning: cancels the app's deletion (HEAD changes nothing).",
  description: 'Anonymous: the signed token is the authority. Answers an HTML page, also when the link is not valid (400).',
  tag: 'account deletion',
  params: z.object({ appId: z.string() }),
  query: abortLinkQuerySchema,
  responses: {
    200: { description: 'The deletion was cancelled.', contentType: 'text/html' },
    400: { description: 'The link was not valid; nothing was changed.', contentType: 'text/html' },
  },
});
/** The routes this file declares, in the order the OpenAPI document lists them. */
export const appDeletionRouteSpecs: readonly RouteSpec[] = [abortDeletionRoute];

function page(res: Response, status: number, title: string, text: string): void {
  // No script or style: the service's CSP (default-src 'none') suits it, and no-referrer keeps the token in the address bar only.
  res
    .status(status)
    .type('html')
    .send(
      `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title></head>` +
        `<body><h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p></body></html>\n`,
    );
}

/** The abort link of an account-deletion warning (anonymous: the signed token is the authority). */
export function appDeletionRoutes(services: Services): Router {
  const router = Router();
  const auth = routeAuthenticators(services);

  mountRoute(router, auth, abortDeletionRoute, async ({ params, query }, req, res) => {
    // Link scanners probe with HEAD; only a real visit cancels.
    if (req.method === 'HEAD') {
      res.status(200).type('html').end();
      return;
    }
    const { appId } = params;
    if (await services.deletions.cancelWithLink(appId, query.token)) {
      page(res, 200, 'Deletion cancelled', `The app '${appId}' will not be deleted, and its API keys work again.`);
    } else {
      page(res, 400, 'This link is not valid', 'It was already used, has expired or is not a link we sent, or the deletion was already cancelled or carried out. Nothing was changed.');
    }
  });
  return router;
}
