import { Router } from 'express';
import { authOf, requireKey } from '../http/authenticate';
import { listBody } from '../http/lists';
import { parseWith } from '../http/validation';
import { userIdSchema } from '../services/credentials';
import type { Services } from '../services';

export function userRoutes(services: Services): Router {
  const router = Router();
  const secret = requireKey(services.keys, 'ApiSecret');

  router.get('/users/list', secret, async (_req, res) => {
    const appId = authOf(res).appId;
    res.json(await listBody(services, appId, await services.users.list(appId)));
  });

  router.get('/users/count', secret, async (_req, res) => {
    res.json({ count: await services.users.count(authOf(res).appId) });
  });

  router.post('/users/delete', secret, async (req, res) => {
    const { userId } = parseWith(userIdSchema, req.body);
    await services.users.delete(authOf(res).appId, userId);
    res.status(204).end();
  });
  return router;
}
