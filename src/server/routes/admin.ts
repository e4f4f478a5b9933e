import { Router } from 'express';
import { z } from 'zod';
import { requireManagementKey } from '../http/authenticate';
import { ciObject, parseWith } from '../http/validation';
import { PUBLIC_SCOPES, SECRET_SCOPES, type KeyKind, type Scope } from '../services/apiKeys';
import { markDeleteSchema } from '../services/appDeletion';
import { createAppSchema, featuresPatchSchema } from '../services/apps';
import { UNKNOWN_USER } from '../services/eventTypes';
import type { Services } from '../services';

// The reference sends key scopes as enum integers (Register=0, Login=1 / TokenRegister=0, TokenVerify=1).
const buildScopesSchema = (kind: KeyKind) => {
  const names: readonly Scope[] = kind === 'public' ? PUBLIC_SCOPES : SECRET_SCOPES;
  return ciObject({
    scopes: z
      .array(z.union([z.number().int(), z.string()]))
      .optional()
      .transform((values) => (values ?? []).map((v) => (typeof v === 'number' ? (names[v] ?? String(v)) : v.toLowerCase())) as Scope[]),
  });
};
// Built once, not per request.
const SCOPES_SCHEMAS = { public: buildScopesSchema('public'), secret: buildScopesSchema('secret') };
const scopesSchema = (kind: KeyKind) => SCOPES_SCHEMAS[kind];

/** Management API (`ManagementKey` header): apps, their keys and features. */
export function adminRoutes(services: Services): Router {
  const router = Router();
  const { apps, deletions } = services;
  // Per route rather than per prefix, so an unknown /admin path is a 404 whatever is sent.
  const mk = requireManagementKey(services.config.managementKey);

  router.get('/admin/apps', mk, async (_req, res) => {
    res.json({ values: await apps.list() });
  });
  router.get('/admin/apps/:appId/available', mk, async (req, res) => {
    res.json({ available: await apps.isAvailable(String(req.params.appId)) });
  });
  router.post('/admin/apps/:appId/create', mk, async (req, res) => {
    res.json(await apps.create(String(req.params.appId), parseWith(createAppSchema, req.body)));
  });
  router.delete('/admin/apps/:appId', mk, async (req, res) => {
    res.json(await apps.delete(String(req.params.appId)));
  });
  router.post('/admin/apps/:appId/mark-delete', mk, async (req, res) => {
    const { deletedBy } = parseWith(markDeleteSchema, req.body);
    res.json(await deletions.schedule(String(req.params.appId), deletedBy?.trim() || UNKNOWN_USER));
  });
  router.post('/admin/apps/:appId/cancel-delete', mk, async (req, res) => {
    res.json(await deletions.cancel(String(req.params.appId), UNKNOWN_USER));
  });
  router.get('/admin/apps/:appId/features', mk, async (req, res) => {
    res.json(await apps.getFeatures(String(req.params.appId)));
  });
  router.post('/admin/apps/:appId/features', mk, async (req, res) => {
    await apps.setFeatures(String(req.params.appId), parseWith(featuresPatchSchema, req.body));
    res.status(204).end();
  });
  router.post('/admin/apps/:appId/freeze', mk, async (req, res) => {
    await apps.setFrozen(String(req.params.appId), true);
    res.status(204).end();
  });
  router.post('/admin/apps/:appId/unfreeze', mk, async (req, res) => {
    await apps.setFrozen(String(req.params.appId), false);
    res.status(204).end();
  });
  router.get('/admin/apps/:appId/api-keys', mk, async (req, res) => {
    res.json(await apps.listKeys(String(req.params.appId)));
  });
  for (const kind of ['public', 'secret'] as const) {
    router.post(`/admin/apps/:appId/${kind}-keys`, mk, async (req, res) => {
      const { scopes } = parseWith(scopesSchema(kind), req.body);
      res.json({ apiKey: await apps.createKey(String(req.params.appId), kind, scopes) });
    });
  }
  router.post('/admin/apps/:appId/api-keys/:keyId/lock', mk, async (req, res) => {
    await apps.setKeyLocked(String(req.params.appId), String(req.params.keyId), true);
    res.status(204).end();
  });
  router.post('/admin/apps/:appId/api-keys/:keyId/unlock', mk, async (req, res) => {
    await apps.setKeyLocked(String(req.params.appId), String(req.params.keyId), false);
    res.status(204).end();
  });
  router.delete('/admin/apps/:appId/api-keys/:keyId', mk, async (req, res) => {
    await apps.deleteKey(String(req.params.appId), String(req.params.keyId));
    res.status(204).end();
  });
  return router;
}
