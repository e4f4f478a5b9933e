import { Router } from 'express';
import { authOf, requireKey } from '../http/authenticate';
import { parseWith } from '../http/validation';
import { appFeaturesSchema } from '../services/apps';
import type { Services } from '../services';

/** The app's own switches (ApiSecret): the reference's private `POST /apps/features`. */
export function appFeatureRoutes(services: Services): Router {
  const router = Router();
  router.post('/apps/features', requireKey(services.keys, 'ApiSecret'), async (req, res) => {
    await services.apps.setOwnFeatures(authOf(res).appId, parseWith(appFeaturesSchema, req.body));
    res.status(204).end();
  });
  return router;
}
