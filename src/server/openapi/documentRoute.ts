import { z } from 'zod';
import { defineRoute } from '../http/routing/routeSpec';

export const openApiDocumentRoute = defineRoute({
  method: 'get',
  path: '/openapi.json',
  operationId: 'openApiDocument',
  summary: 'This document: OpenAPI 3.1, generated from the schemas the routes validate with.',
  tag: 'meta',
  responses: { 200: { description: 'The OpenAPI document.', schema: z.looseObject({ openapi: z.string(), paths: z.record(z.string(), z.unknown()) }) } },
});
