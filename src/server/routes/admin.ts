import { Router } from 'express';
import { z } from 'zod';
import { mountRoute } from '../http/routing/mountRoute';
import { routeAuthenticators } from './routeAuthenticators';
import { defineRoute, type RouteSpec } from '../http/routing/routeSpec';
import { apiKeyAnswer, appFeaturesAnswer, appSummaryAnswer, createdAppAnswer, deletionAnswer, deletionScheduleAnswer, messageAnswer } from './responseSchemas';
import type { KeyKind } from '../services/apps/apiKeys';
import { keyScopesSchema } from '../services/apps/keyScopesSchema';
import { markDeleteSchema } from '../services/apps/appDeletion';
import { createAppSchema, featuresPatchSchema } from '../services/apps/apps';
import { UNKNOWN_USER } from '../services/events/eventTypes';
import type { Services } from '../services';
import { isReservedAppId } from '../core/reservedAppId';

const appParams = z.object({ appId: z.string() });
const appKeyParams = z.object({ appId: z.string(), keyId: z.string() });

/** What every management route shares: the ManagementKey and its tag. */
const management = { tag: 'management API', auth: 'ManagementKey' } as const;
const noContent = { 204: { description: 'Done.' } };

const listAppsRoute = defineRoute({
  ...management,
  method: 'get',
  path: '/admin/apps',
  operationId: 'adminListApps',
  summary: 'Every app.',
  responses: { 200: { description: 'The apps.', schema: z.looseObject({ values: z.array(appSummaryAnswer) }) } },
});

const appAvailableRoute = defineRoute({
  ...management,
  method: 'get',
  path: '/admin/apps/:appId/available',
  operationId: 'adminAppAvailable',
  summary: 'Whether an app id is free.',
  params: appParams,
  responses: { 200: { description: 'Free or not.', schema: z.looseObject({ available: z.boolean() }) } },
});

const createAppRoute = defineRoute({
  ...management,
  method: 'post',
  path: '/admin/apps/:appId/create',
  operationId: 'adminCreateApp',
  summary: 'Create an app; its two public keys and two secrets are shown only here.',
  params: appParams,
  body: createAppSchema,
  responses: { 200: { description: 'The new keys.', schema: createdAppAnswer } },
});

const deleteAppRoute = defineRoute({
  ...management,
  method: 'delete',
  path: '/admin/apps/:appId',
  operationId: 'adminDeleteApp',
  summary: 'Delete an app and all its data at once.',
  params: appParams,
  responses: { 200: { description: 'Deleted.', schema: deletionAnswer } },
});

const markDeleteRoute = defineRoute({
  ...management,
  method: 'post',
  path: '/admin/apps/:appId/mark-delete',
  operationId: 'adminScheduleAppDeletion',
  summary: "Schedule an app's deletion (keys freeze after 24 hours, data goes after 14 days).",
  params: appParams,
  body: markDeleteSchema,
  responses: { 200: { description: 'The schedule.', schema: deletionScheduleAnswer } },
});

const cancelDeleteRoute = defineRoute({
  ...management,
  method: 'post',
  path: '/admin/apps/:appId/cancel-delete',
  operationId: 'adminCancelAppDeletion',
  summary: "Cancel an app's scheduled deletion.",
  params: appParams,
  responses: { 200: { description: 'Cancelled.', schema: messageAnswer } },
});

const getFeaturesRoute = defineRoute({
  ...management,
  method: 'get',
  path: '/admin/apps/:appId/features',
  operationId: 'adminGetFeatures',
  summary: "An app's features.",
  params: appParams,
  responses: { 200: { description: 'The features.', schema: appFeaturesAnswer } },
});

const setFeaturesRoute = defineRoute({
  ...management,
  method: 'post',
  path: '/admin/apps/:appId/features',
  operationId: 'adminSetFeatures',
  summary: "Change the features of an app it is given.",
  params: appParams,
  body: featuresPatchSchema,
  responses: noContent,
});

const freezeAppRoute = defineRoute({
  ...management,
  method: 'post',
  path: '/admin/apps/:appId/freeze',
  operationId: 'adminFreezeApp',
  summary: "Freeze an app: every key of it is refused.",
  params: appParams,
  responses: noContent,
});

const unfreezeAppRoute = defineRoute({
  ...management,
  method: 'post',
  path: '/admin/apps/:appId/unfreeze',
  operationId: 'adminUnfreezeApp',
  summary: 'Unfreeze an app.',
  params: appParams,
  responses: noContent,
});

const listKeysRoute = defineRoute({
  ...management,
  method: 'get',
  path: '/admin/apps/:appId/api-keys',
  operationId: 'adminListApiKeys',
  summary: "An app's keys (secrets masked).",
  params: appParams,
  responses: { 200: { description: 'The keys.', schema: z.array(apiKeyAnswer) } },
});

const createKeyRoute = (kind: KeyKind) =>
  defineRoute({
    ...management,
    method: 'post',
    path: `/admin/apps/:appId/${kind}-keys`,
    operationId: kind === 'public' ? 'adminCreatePublicKey' : 'adminCreateSecretKey',
    summary: `Create a ${kind} key with the given scopes.`,
    params: appParams,
    body: keyScopesSchema(kind),
    responses: { 200: { description: 'The new key, shown only here.', schema: z.looseObject({ apiKey: z.string() }) } },
  });

const createPublicKeyRoute = createKeyRoute('public');
const createSecretKeyRoute = createKeyRoute('secret');

const lockKeyRoute = defineRoute({
  ...management,
  method: 'post',
  path: '/admin/apps/:appId/api-keys/:keyId/lock',
  operationId: 'adminLockApiKey',
  summary: 'Lock a key (its id is its last four characters).',
  params: appKeyParams,
  responses: noContent,
});

const unlockKeyRoute = defineRoute({
  ...management,
  method: 'post',
  path: '/admin/apps/:appId/api-keys/:keyId/unlock',
  operationId: 'adminUnlockApiKey',
  summary: 'Unlock a key.',
  params: appKeyParams,
  responses: noContent,
});

const deleteKeyRoute = defineRoute({
  ...management,
  method: 'delete',
  path: '/admin/apps/:appId/api-keys/:keyId',
  operationId: 'adminDeleteApiKey',
  summary: 'Delete a key.',
  params: appKeyParams,
  responses: noContent,
});
/** The routes this file declares, in the order the OpenAPI document lists them. */
export const adminRouteSpecs: readonly RouteSpec[] = [
  listAppsRoute,
  appAvailableRoute,
  createAppRoute,
  deleteAppRoute,
  markDeleteRoute,
  cancelDeleteRoute,
  getFeaturesRoute,
  setFeaturesRoute,
  freezeAppRoute,
  unfreezeAppRoute,
  listKeysRoute,
  createPublicKeyRoute,
  createSecretKeyRoute,
  lockKeyRoute,
  unlockKeyRoute,
  deleteKeyRoute,
];

/** Management API (`ManagementKey` header): apps, their keys and features. */
export function adminRoutes(services: Services): Router {
  const router = Router();
  const auth = routeAuthenticators(services);
  const { apps, deletions } = services;
  // The key is checked per route (mountRoute) rather than per prefix, so an unknown /admin path is a 404 whatever is sent.
  mountRoute(router, auth, listAppsRoute, async (_input, _req, res) => {
    res.json({ values: await apps.list() });
  });
  // The console's reserved id is never available (its create is refused), whether or not the console made its app yet.
  mountRoute(router, auth, appAvailableRoute, async ({ params }, _req, res) => {
    res.json({ available: !isReservedAppId(params.appId) && (await apps.isAvailable(params.appId)) });
  }, { answersReservedAppId: true });
  mountRoute(router, auth, createAppRoute, async ({ params, body }, _req, res) => {
    res.json(await apps.create(params.appId, body));
  });
  mountRoute(router, auth, deleteAppRoute, async ({ params }, _req, res) => {
    res.json(await apps.delete(params.appId));
  });
  mountRoute(router, auth, markDeleteRoute, async ({ params, body }, _req, res) => {
    res.json(await deletions.schedule(params.appId, body.deletedBy?.trim() || UNKNOWN_USER));
  });
  mountRoute(router, auth, cancelDeleteRoute, async ({ params }, _req, res) => {
    res.json(await deletions.cancel(params.appId, UNKNOWN_USER));
  });
  mountRoute(router, auth, getFeaturesRoute, async ({ params }, _req, res) => {
    res.json(await apps.getFeatures(params.appId));
  });
  mountRoute(router, auth, setFeaturesRoute, async ({ params, body }, _req, res) => {
    await apps.setFeatures(params.appId, body);
    res.status(204).end();
  });
  mountRoute(router, auth, freezeAppRoute, async ({ params }, _req, res) => {
    await apps.setFrozen(params.appId, true);
    res.status(204).end();
  });
  mountRoute(router, auth, unfreezeAppRoute, async ({ params }, _req, res) => {
    await apps.setFrozen(params.appId, false);
    res.status(204).end();
  });
  mountRoute(router, auth, listKeysRoute, async ({ params }, _req, res) => {
    res.json(await apps.listKeys(params.appId));
  });
  for (const [route, kind] of [
    [createPublicKeyRoute, 'public'],
    [createSecretKeyRoute, 'secret'],
  ] as const) {
    mountRoute(router, auth, route, async ({ params, body }, _req, res) => {
      res.json({ apiKey: await apps.createKey(params.appId, kind, body.scopes) });
    });
  }
  mountRoute(router, auth, lockKeyRoute, async ({ params }, _req, res) => {
    await apps.setKeyLocked(params.appId, params.keyId, true);
    res.status(204).end();
  });
  mountRoute(router, auth, unlockKeyRoute, async ({ params }, _req, res) => {
    await apps.setKeyLocked(params.appId, params.keyId, false);
    res.status(204).end();
  });
  mountRoute(router, auth, deleteKeyRoute, async ({ params }, _req, res) => {
    await apps.deleteKey(params.appId, params.keyId);
    res.status(204).end();
  });
  return router;
}
