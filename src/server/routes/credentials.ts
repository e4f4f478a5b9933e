import { Router } from 'express';
import { authOf, requireKey } from '../http/authenticate';
import { listBody } from '../http/lists';
import { parseWith } from '../http/validation';
import { deleteCredentialSchema, userIdSchema } from '../services/credentials';
import type { Services } from '../services';
import { userIdQuerySchema } from './alias';

export function credentialRoutes(services: Services): Router {
  const router = Router();
  const secret = requireKey(services.keys, 'ApiSecret');

  const list = async (appId: string, userId: string) => listBody(services, appId, await services.credentials.list(appId, userId));

  router.get('/credentials/list', secret, async (req, res) => {
    const { userId } = parseWith(userIdQuerySchema, req.query);
    res.json(await list(authOf(res).appId, userId));
  });

  router.post('/credentials/list', secret, async (req, res) => {
    const { userId } = parseWith(userIdSchema, req.body);
    res.json(await list(authOf(res).appId, userId));
  });

  router.post('/credentials/delete', secret, async (req, res) => {
    const { credentialId } = parseWith(deleteCredentialSchema, req.body);
    await services.credentials.delete(authOf(res).appId, credentialId);
    res.status(204).end();
  });
  return router;
}
