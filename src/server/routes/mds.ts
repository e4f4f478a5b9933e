import { Router } from 'express';
import { z } from 'zod';
import { mountRoute } from '../http/routing/mountRoute';
import { defineRoute, type RouteSpec } from '../http/routing/routeSpec';
import { ciObject } from '../core/validation';
import { routeAuthenticators } from './routeAuthenticators';
import { metadataEntryAnswer } from './responseSchemas';
import type { Services } from '../services';

const management = { tag: 'management API', auth: 'ManagementKey' } as const;

/** A filter's values: the parameter repeated, or comma-separated; each of letters, digits and _. */
const filterValues = z.preprocess(
  (v) => (v === undefined ? undefined : (Array.isArray(v) ? v : [v]).flatMap((item) => (typeof item === 'string' ? item.split(',').map((part) => part.trim()).filter(Boolean) : [item]))),
  z.array(z.string().regex(/^[a-zA-Z0-9_]*$/, 'must hold only letters, digits and _').max(64)).max(50, 'must hold at most 50 values').optional(),
);

export const metadataEntriesQuerySchema = ciObject({ attestationTypes: filterValues, certificationStatuses: filterValues });

const attestationTypesRoute = defineRoute({
  method: 'get',
  path: '/mds/attestation-types',
  operationId: 'listMetadataAttestationTypes',
  summary: "Every attestation type of the FIDO metadata's FIDO2 entries, sorted; [] without metadata.",
  ...management,
  responses: { 200: { description: 'The attestation types.', schema: z.array(z.string()) } },
});

const certificationStatusesRoute = defineRoute({
  method: 'get',
  path: '/mds/certification-statuses',
  operationId: 'listMetadataCertificationStatuses',
  summary: "Every status the FIDO metadata's FIDO2 entries report, sorted; [] without metadata.",
  ...management,
  responses: { 200: { description: 'The statuses.', schema: z.array(z.string()) } },
});

const entriesRoute = defineRoute({
  method: 'get',
  path: '/mds/entries',
  operationId: 'listMetadataEntries',
  summary: "The FIDO metadata's FIDO2 authenticators by name; each filter keeps entries with any of its values.",
  ...management,
  query: metadataEntriesQuerySchema,
  responses: { 200: { description: 'The authenticators.', schema: z.array(metadataEntryAnswer) } },
});
/** The routes this file declares, in the order the OpenAPI document lists them. */
export const mdsRouteSpecs: readonly RouteSpec[] = [attestationTypesRoute, certificationStatusesRoute, entriesRoute];

/** The FIDO metadata in use (ManagementKey): what the allow and block lists may name. */
export function mdsRoutes(services: Services): Router {
  const router = Router();
  const auth = routeAuthenticators(services);
  const { metadata } = services;

  mountRoute(router, auth, attestationTypesRoute, async (_input, _req, res) => {
    res.json((await metadata.catalog())?.attestationTypes ?? []);
  });

  mountRoute(router, auth, certificationStatusesRoute, async (_input, _req, res) => {
    res.json((await metadata.catalog())?.certificationStatuses ?? []);
  });

  mountRoute(router, auth, entriesRoute, async ({ query }, _req, res) => {
    res.json((await metadata.catalog())?.list(query) ?? []);
  });
  return router;
}
