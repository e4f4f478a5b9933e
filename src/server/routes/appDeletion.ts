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

const linkParams = z.object({ appId: z.string() });
const linkPages = {
  400: { description: 'The link was not valid; nothing was changed.', contentType: 'text/html' },
};

const abortDeletionRoute = defineRoute({
  method: 'get',
  path: '/apps/delete/cancel/:appId',
  operationId: 'abortAppDeletion',
  summary: "The abort link of an account-deletion warning: a page asking to confirm the cancellation (GET and HEAD change nothing).",
  description: 'Anonymous: the signed token is the authority. Answers an HTML page whose form posts the confirmation, or says the link is not valid (400).',
  tag: 'account deletion',
  params: linkParams,
  query: abortLinkQuerySchema,
  responses: { 200: { description: 'The confirmation page.', contentType: 'text/html' }, ...linkPages },
});

const confirmAbortDeletionRoute = defineRoute({
  method: 'post',
  path: '/apps/delete/cancel/:appId',
  operationId: 'confirmAbortAppDeletion',
  summary: "The confirmation the abort link's page posts: cancels the app's deletion.",
  description: 'Anonymous: the signed token (in the query, as in the link) is the authority; it works once. Answers an HTML page.',
  tag: 'account deletion',
  params: linkParams,
  query: abortLinkQuerySchema,
  responses: { 200: { description: 'The deletion was cancelled.', contentType: 'text/html' }, ...linkPages },
});
/** The routes this file declares, in the order the OpenAPI document lists them. */
export const appDeletionRouteSpecs: readonly RouteSpec[] = [abortDeletionRoute, confirmAbortDeletionRoute];

/**
 * A page of the link: no script or style (the service's CSP, default-src 'none', suits it; a
 * form's submission is not a fetch it governs), and no-referrer keeps the token in the address
 * bar only. `form` adds a button that posts to the page's own address, token included.
 */
function page(res: Response, status: number, title: string, text: string, form?: string): void {
  const button = form === undefined ? '' : `<form method="post" action=""><button type="submit">${escapeHtml(form)}</button></form>`;
  res
    .status(status)
    .type('html')
    .send(
      `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title></head>` +
        `<body><h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p>${button}</body></html>\n`,
    );
}

const notValid = (res: Response) =>
  page(res, 400, 'This link is not valid', 'It was already used, has expired or is not a link we sent, or the deletion was already cancelled or carried out. Nothing was changed.');

/** The abort link of an account-deletion warning (anonymous: the signed token is the authority). */
export function appDeletionRoutes(services: Services): Router {
  const router = Router();
  const auth = routeAuthenticators(services);

  // Mail scanners fetch links (GET, HEAD): the link only shows a page; its button's POST cancels.
  mountRoute(router, auth, abortDeletionRoute, async ({ params, query }, req, res) => {
    if (req.method === 'HEAD') {
      res.status(200).type('html').end();
      return;
    }
    const { appId } = params;
    if (await services.deletions.isCancelLinkValid(appId, query.token)) {
      page(res, 200, 'Cancel the deletion?', `The app '${appId}' is scheduled for deletion. Cancel it, and its API keys work again.`, 'Cancel the deletion');
    } else {
      notValid(res);
    }
  });

  mountRoute(router, auth, confirmAbortDeletionRoute, async ({ params, query }, _req, res) => {
    const { appId } = params;
    if (await services.deletions.cancelWithLink(appId, query.token)) {
      page(res, 200, 'Deletion cancelled', `The app '${appId}' will not be deleted, and its API keys work again.`);
    } else {
      notValid(res);
    }
  });
  return router;
}
