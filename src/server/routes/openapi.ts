import { Router } from 'express';
import { mountRoute } from '../http/routing/mountRoute';
import { openApiDocumentText } from '../openapi/document';
import { openApiDocumentRoute } from '../openapi/documentRoute';
import type { Services } from '../services';

/** `GET /openapi.json`: built when the app is created, so a request only sends the cached text. */
export function openApiRoutes(services: Services): Router {
  const router = Router();
  const text = openApiDocumentText();
  mountRoute(router, services, openApiDocumentRoute, (_input, _req, res) => {
    res.type('application/json').send(text);
  });
  return router;
}
