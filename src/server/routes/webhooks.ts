import { Router } from 'express';
import { z } from 'zod';
import { authOf } from '../http/middleware/authenticate';
import { mountRoute } from '../http/routing/mountRoute';
import { defineRoute, type RouteSpec } from '../http/routing/routeSpec';
import { adminUpdateWebhookSchema, createWebhookSchema, updateWebhookSchema, webhookIdSchema } from '../services/webhooks/webhookEndpoints';
import { createdWebhookAnswer, rotatedWebhookSecretAnswer, webhookAnswer } from './responseSchemas';
import { routeAuthenticators } from './routeAuthenticators';
import type { Services } from '../services';

const secretOnce = 'The secret (whsec_…) is in this answer only; the service keeps it sealed and never shows it again.';
const privateApi = { tag: 'private API', auth: 'ApiSecret', scope: 'webhooks' } as const;
const management = { tag: 'management API', auth: 'ManagementKey' } as const;
const noContent = { 204: { description: 'Done.' } };

// --- private API (ApiSecret, scope webhooks) ----------------------------------------------------

const listWebhooksRoute = defineRoute({
  ...privateApi,
  method: 'get',
  path: '/webhooks/list',
  operationId: 'listWebhooks',
  summary: "The app's webhook endpoints, oldest first (without their secrets).",
  responses: { 200: { description: 'The endpoints.', schema: z.array(webhookAnswer) } },
});

const createWebhookRoute = defineRoute({
  ...privateApi,
  method: 'post',
  path: '/webhooks/create',
  operationId: 'createWebhook',
  summary: 'Add a webhook endpoint (at most 10 per app): an https URL and the event types it receives.',
  description: `${secretOnce} A URL that is not https, or whose host resolves to an address that is not global unicast (private, loopback, link-local, documentation, or an IPv6 form that embeds an IPv4 address), is refused with webhook_url_not_allowed.`,
  body: createWebhookSchema,
  responses: { 201: { description: 'The endpoint and its secret.', schema: createdWebhookAnswer } },
});

const updateWebhookRoute = defineRoute({
  ...privateApi,
  method: 'post',
  path: '/webhooks/update',
  operationId: 'updateWebhook',
  summary: 'Change the fields of an endpoint it is given (url, eventTypes, description, enabled).',
  body: updateWebhookSchema,
  responses: { 200: { description: 'The endpoint as it is now.', schema: webhookAnswer } },
});

const deleteWebhookRoute = defineRoute({
  ...privateApi,
  method: 'post',
  path: '/webhooks/delete',
  operationId: 'deleteWebhook',
  summary: 'Delete an endpoint and every delivery to it.',
  body: webhookIdSchema,
  responses: noContent,
});

const rotateWebhookSecretRoute = defineRoute({
  ...privateApi,
  method: 'post',
  path: '/webhooks/rotate-secret',
  operationId: 'rotateWebhookSecret',
  summary: "Give an endpoint a new signing secret; for 24 hours every webhook carries the new and the old secret's signatures.",
  description: secretOnce,
  body: webhookIdSchema,
  responses: { 200: { description: 'The new secret.', schema: rotatedWebhookSecretAnswer } },
});

// --- management API (ManagementKey), an app by its id ---------------------------------------------

const appParams = z.object({ appId: z.string() });
const appWebhookParams = z.object({ appId: z.string(), webhookId: z.string() });

const adminListWebhooksRoute = defineRoute({
  ...management,
  method: 'get',
  path: '/admin/apps/:appId/webhooks',
  operationId: 'adminListWebhooks',
  summary: "An app's webhook endpoints (without their secrets).",
  params: appParams,
  responses: { 200: { description: 'The endpoints.', schema: z.array(webhookAnswer) } },
});

const adminCreateWebhookRoute = defineRoute({
  ...management,
  method: 'post',
  path: '/admin/apps/:appId/webhooks',
  operationId: 'adminCreateWebhook',
  summary: 'Add a webhook endpoint to an app.',
  description: secretOnce,
  params: appParams,
  body: createWebhookSchema,
  responses: { 201: { description: 'The endpoint and its secret.', schema: createdWebhookAnswer } },
});

const adminUpdateWebhookRoute = defineRoute({
  ...management,
  method: 'post',
  path: '/admin/apps/:appId/webhooks/:webhookId',
  operationId: 'adminUpdateWebhook',
  summary: "Change the fields of an app's endpoint it is given.",
  params: appWebhookParams,
  body: adminUpdateWebhookSchema,
  responses: { 200: { description: 'The endpoint as it is now.', schema: webhookAnswer } },
});

const adminDeleteWebhookRoute = defineRoute({
  ...management,
  method: 'delete',
  path: '/admin/apps/:appId/webhooks/:webhookId',
  operationId: 'adminDeleteWebhook',
  summary: "Delete an app's endpoint and every delivery to it.",
  params: appWebhookParams,
  responses: noContent,
});

const adminRotateWebhookSecretRoute = defineRoute({
  ...management,
  method: 'post',
  path: '/admin/apps/:appId/webhooks/:webhookId/rotate-secret',
  operationId: 'adminRotateWebhookSecret',
  summary: "Give an app's endpoint a new signing secret (the old one signs beside it for 24 hours).",
  description: secretOnce,
  params: appWebhookParams,
  responses: { 200: { description: 'The new secret.', schema: rotatedWebhookSecretAnswer } },
});

/** The private API's routes, in the order the OpenAPI document lists them. */
export const webhooksRouteSpecs: readonly RouteSpec[] = [listWebhooksRoute, createWebhookRoute, updateWebhookRoute, deleteWebhookRoute, rotateWebhookSecretRoute];
/** The management API's routes, in the order the OpenAPI document lists them. */
export const adminWebhooksRouteSpecs: readonly RouteSpec[] = [
  adminListWebhooksRoute,
  adminCreateWebhookRoute,
  adminUpdateWebhookRoute,
  adminDeleteWebhookRoute,
  adminRotateWebhookSecretRoute,
];

/** The app's own webhook endpoints (ApiSecret with the webhooks scope). */
export function webhookRoutes(services: Services): Router {
  const router = Router();
  const auth = routeAuthenticators(services);
  const { webhooks } = services;

  mountRoute(router, auth, listWebhooksRoute, async (_input, _req, res) => {
    res.json(await webhooks.list(authOf(res).appId));
  });
  mountRoute(router, auth, createWebhookRoute, async ({ body }, _req, res) => {
    res.status(201).json(await webhooks.create(authOf(res).appId, body));
  });
  mountRoute(router, auth, updateWebhookRoute, async ({ body: { id, ...changes } }, _req, res) => {
    res.json(await webhooks.update(authOf(res).appId, id, changes));
  });
  mountRoute(router, auth, deleteWebhookRoute, async ({ body }, _req, res) => {
    await webhooks.delete(authOf(res).appId, body.id);
    res.status(204).end();
  });
  mountRoute(router, auth, rotateWebhookSecretRoute, async ({ body }, _req, res) => {
    res.json(await webhooks.rotateSecret(authOf(res).appId, body.id));
  });
  return router;
}

/** Any app's webhook endpoints (ManagementKey). */
export function adminWebhookRoutes(services: Services): Router {
  const router = Router();
  const auth = routeAuthenticators(services);
  const { webhooks } = services;

  mountRoute(router, auth, adminListWebhooksRoute, async ({ params }, _req, res) => {
    await webhooks.assertApp(params.appId);
    res.json(await webhooks.list(params.appId));
  });
  mountRoute(router, auth, adminCreateWebhookRoute, async ({ params, body }, _req, res) => {
    await webhooks.assertApp(params.appId);
    res.status(201).json(await webhooks.create(params.appId, body));
  });
  mountRoute(router, auth, adminUpdateWebhookRoute, async ({ params, body }, _req, res) => {
    await webhooks.assertApp(params.appId);
    res.json(await webhooks.update(params.appId, params.webhookId, body));
  });
  mountRoute(router, auth, adminDeleteWebhookRoute, async ({ params }, _req, res) => {
    await webhooks.assertApp(params.appId);
    await webhooks.delete(params.appId, params.webhookId);
    res.status(204).end();
  });
  mountRoute(router, auth, adminRotateWebhookSecretRoute, async ({ params }, _req, res) => {
    await webhooks.assertApp(params.appId);
    res.json(await webhooks.rotateSecret(params.appId, params.webhookId));
  });
  return router;
}
