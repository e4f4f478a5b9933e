import { Router } from 'express';
import { authOf, requireKey } from '../http/authenticate';
import { parseWith } from '../http/validation';
import { sendMagicLinkSchema } from '../services/magicLinks';
import type { Services } from '../services';

export function magicLinkRoutes(services: Services): Router {
  const router = Router();
  router.post('/magic-links/send', requireKey(services.keys, 'ApiSecret'), async (req, res) => {
    await services.magicLinks.send(authOf(res).appId, parseWith(sendMagicLinkSchema, req.body));
    res.status(204).end();
  });
  return router;
}
