import { Router } from 'express';
import { authOf, requireKey } from '../../http/authenticate';
import type { Services } from '../../services';

/**
 * `POST /v3/account/delete` (ApiSecret, no body): the app becomes pending deletion, its admin is
 * mailed a link that cancels it; keys freeze after 24 hours, data goes after 14 days.
 */
export function legacyAccountRoutes(services: Services): Router {
  const router = Router();
  router.post('/account/delete', requireKey(services.keys, 'ApiSecret'), async (_req, res) => {
    const { appId, keyId } = authOf(res);
    const { message, keysFreezeAt, deleteAt } = await services.deletions.schedule(appId, `the API (secret key ...${keyId})`);
    res.json({ message, keysFreezeAt, deleteAt });
  });
  return router;
}
