import { Router } from 'express';
import { authOf, requireKey } from '../http/authenticate';
import { parseWith } from '../http/validation';
import { eventsQuerySchema } from '../services/events';
import type { Services } from '../services';

/** The app's event log (ApiSecret): `GET /events?pageNumber=&numberOfResults=`. */
export function eventRoutes(services: Services): Router {
  const router = Router();
  router.get('/events', requireKey(services.keys, 'ApiSecret'), async (req, res) => {
    res.json(await services.events.page(authOf(res).appId, parseWith(eventsQuerySchema, req.query)));
  });
  return router;
}
