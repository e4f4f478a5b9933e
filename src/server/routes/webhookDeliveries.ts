import { Router } from 'express';
import { z } from 'zod';
import { authOf } from '../http/middleware/authenticate';
import { mountRoute } from '../http/routing/mountRoute';
import { defineRoute, type RouteSpec } from '../http/routing/routeSpec';
import { adminDeliveryLogQuerySchema, deliveryLogQuerySchema, redeliverSchema } from '../services/webhooks/webhookDeliveryLog';
import { webhookIdSchema } from '../services/webhooks/webhookEndpoints';
import { webhookDeliveryAnswer } from './responseSchemas';
import { routeAuthenticators } from './routeAuthenticators';
import type { Services } from '../services';

const privateApi = { tag: 'private API', auth: 'ApiSecret', scope: 'webhooks' } as const;
const management = { tag: 'management API', auth: 'ManagementKey' } as const;
const queued = {
  202: {
    description: "Queued: the new delivery's id, and the webhook-id the receiver will see.",
    schema: z.looseObject({ id: z.string().describe("the new delivery's id"), webhookId: z.string().describe('the webhook-id it is sent with') }),
  },
};

const deliveryLogRoute = defineRoute({
  ...privateApi,
  method: 'get',
  path: '/webhooks/deliveries',
  operationId: 'listWebhookDeliveries',
  summary: "An endpoint's latest deliveries, newest first, with their attempts (status, duration) and next try.",
  query: deliveryLogQuerySchema,
  responses: { 200: { description: 'The deliveries.', schema: z.array(webhookDeliveryAnswer) } },
});

const redeliverRoute = defineRoute({
  ...privateApi,
  method: 'post',
  path: '/webhooks/redeliver',
  operationId: 'redeliverWebhook',
  summary: 'Send a delivery again (a replay): a delivery of its own with the same body and the same webhook-id, after what the endpoint has pending.',
  body: redeliverSchema,
  responses: queued,
});

const testRoute = defineRoute({
  ...privateApi,
  method: 'post',
  path: '/webhooks/test',
  operationId: 'testWebhook',
  summary: 'Send a webhook.test event to an endpoint, whatever it subscribes to.',
  body: webhookIdSchema,
  responses: queued,
});

const appWebhookParams = z.object({ appId: z.string(), webhookId: z.string() });
const appDeliveryParams = z.object({ appId: z.string(), deliveryId: z.string() });

const adminDeliveryLogRoute = defineRoute({
  ...management,
  method: 'get',
  path: '/admin/apps/:appId/webhooks/:webhookId/deliveries',
  operationId: 'adminListWebhookDeliveries',
  summary: "An app's endpoint's latest deliveries, newest first, with their attempts and next try.",
  params: appWebhookParams,
  query: adminDeliveryLogQuerySchema,
  responses: { 200: { description: 'The deliveries.', schema: z.array(webhookDeliveryAnswer) } },
});

const adminTestRoute = defineRoute({
  ...management,
  method: 'post',
  path: '/admin/apps/:appId/webhooks/:webhookId/test',
  operationId: 'adminTestWebhook',
  summary: "Send a webhook.test event to an app's endpoint.",
  params: appWebhookParams,
  responses: queued,
});

const adminRedeliverRoute = defineRoute({
  ...management,
  method: 'post',
  path: '/admin/apps/:appId/webhook-deliveries/:deliveryId/redeliver',
  operationId: 'adminRedeliverWebhook',
  summary: "Send one of an app's deliveries again (a replay with the same body and webhook-id).",
  params: appDeliveryParams,
  responses: queued,
});

/** The private API's routes, in the order the OpenAPI document lists them. */
export const webhookDeliveriesRouteSpecs: readonly RouteSpec[] = [deliveryLogRoute, redeliverRoute, testRoute];
/** The management API's routes, in the order the OpenAPI document lists them. */
export const adminWebhookDeliveriesRouteSpecs: readonly RouteSpec[] = [adminDeliveryLogRoute, adminTestRoute, adminRedeliverRoute];

/** The app's own delivery log, redelivery and test event (ApiSecret with the webhooks scope). */
export function webhookDeliveryRoutes(services: Services): Router {
  const router = Router();
  const auth = routeAuthenticators(services);
  const { webhookDeliveries } = services;
  mountRoute(router, auth, deliveryLogRoute, async ({ query }, _req, res) => {
    res.json(await webhookDeliveries.list(authOf(res).appId, query.id, query.limit));
  });
  mountRoute(router, auth, redeliverRoute, async ({ body }, _req, res) => {
    res.status(202).json(await webhookDeliveries.redeliver(authOf(res).appId, body.deliveryId));
  });
  mountRoute(router, auth, testRoute, async ({ body }, _req, res) => {
    res.status(202).json(await webhookDeliveries.sendTest(authOf(res).appId, body.id));
  });
  return router;
}

/** Any app's delivery log, redelivery and test event (ManagementKey). */
export function adminWebhookDeliveryRoutes(services: Services): Router {
  const router = Router();
  const auth = routeAuthenticators(services);
  const { webhooks, webhookDeliveries } = services;
  mountRoute(router, auth, adminDeliveryLogRoute, async ({ params, query }, _req, res) => {
    await webhooks.assertApp(params.appId);
    res.json(await webhookDeliveries.list(params.appId, params.webhookId, query.limit));
  });
  mountRoute(router, auth, adminTestRoute, async ({ params }, _req, res) => {
    await webhooks.assertApp(params.appId);
    res.status(202).json(await webhookDeliveries.sendTest(params.appId, params.webhookId));
  });
  mountRoute(router, auth, adminRedeliverRoute, async ({ params }, _req, res) => {
    await webhooks.assertApp(params.appId);
    res.status(202).json(await webhookDeliveries.redeliver(params.appId, params.deliveryId));
  });
  return router;
}
