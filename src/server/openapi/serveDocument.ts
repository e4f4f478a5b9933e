import { Router } from 'express';
import { mountRoute } from '../http/routing/mountRoute';
import { routeAuthenticators } from '../routes/routeAuthenticators';
import type { Services } from '../services';
import { openApiDocumentText } from './document';
import { openApiDocumentRoute } from './documentRoute';

/** `GET /openapi.json`: built when the app is created, so a request only sends the cached text. */
export function openApiRoutes(services: Services): Router {
  const router = Router();
  const text = openApiDocumentText();
  mountRoute(router, routeAuthenticators(services), openApiDocumentRoute, (_input, _req, res) => {
    res.type('application/json').send(text);
  });
  return router;
}
