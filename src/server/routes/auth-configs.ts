import { Router } from 'express';
import { authOf, requireKey } from '../http/authenticate';
import { parseWith } from '../http/validation';
import { addAuthConfigSchema, deleteAuthConfigSchema, editAuthConfigSchema, listAuthConfigsQuerySchema } from '../services/authConfigs';
import type { Services } from '../services';

/** Authentication configurations (purposes), ApiSecret. */
export function authConfigRoutes(services: Services): Router {
  const router = Router();
  const secret = requireKey(services.keys, 'ApiSecret');
  const { authConfigs } = services;

  router.get('/auth-configs/list', secret, async (req, res) => {
    const { purpose } = parseWith(listAuthConfigsQuerySchema, req.query);
    res.json({ configurations: await authConfigs.list(authOf(res).appId, purpose || undefined) });
  });

  router.post('/auth-configs/add', secret, async (req, res) => {
    await authConfigs.add(authOf(res).appId, parseWith(addAuthConfigSchema, req.body));
    res.status(201).end();
  });

  router.post('/auth-configs', secret, async (req, res) => {
    await authConfigs.edit(authOf(res).appId, parseWith(editAuthConfigSchema, req.body));
    res.status(204).end();
  });

  router.post('/auth-configs/delete', secret, async (req, res) => {
    await authConfigs.remove(authOf(res).appId, parseWith(deleteAuthConfigSchema, req.body));
    res.status(204).end();
  });
  return router;
}
