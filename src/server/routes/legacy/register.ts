import { Router } from 'express';
import { z } from 'zod';
import { authOf } from '../../http/middleware/authenticate';
import { mountRoute } from '../../http/routing/mountRoute';
import { routeAuthenticators } from '../routeAuthenticators';
import { ciObject } from '../../core/validation';
import { defineRoute, type RouteSpec } from '../../http/routing/routeSpec';
import { USER_VERIFICATIONS } from '../../../shared/vocabulary';
import { emptyToUndefined, registerTokenFields, registerTokenSchema } from '../../services/ceremonies/registration';
import type { Services } from '../../services';

const LEGACY_AUTH_TYPES = ['platform', 'cross-platform'] as const;

/** An enum of the older generation, case-insensitive, with its own spellings mapped to the current ones. */
const legacyEnum = <const T extends readonly [string, ...string[]]>(values: T, renames: Record<string, T[number]>) =>
  z.preprocess(
    (v) => {
      const text = emptyToUndefined(v);
      return typeof text === 'string' ? (renames[text.toLowerCase()] ?? text.toLowerCase()) : text;
    },
    z.enum(values, { message: `must be one of: ${[...values, ...Object.keys(renames)].join(', ')}` }).optional(),
  );

/**
 * `/v3/register/token`: the older generation's parameters (`attType`, `authType` with `platform`
 * as default, `userVerification` with `discourage`), translated into the current request. It had
 * no `aliases`, `discoverable` or `aliasHashing`, so those are ignored (current defaults apply).
 */
const legacyRegisterTokenSchema = ciObject({
  userId: registerTokenFields.userId,
  username: registerTokenFields.username,
  displayName: registerTokenFields.displayName,
  attType: registerTokenFields.attestation,
  authType: legacyEnum(LEGACY_AUTH_TYPES, { crossplatform: 'cross-platform' }),
  userVerification: legacyEnum(USER_VERIFICATIONS, { discourage: 'discouraged' }),
  expiresAt: registerTokenFields.expiresAt,
}).transform(
  (v): z.output<typeof registerTokenSchema> => ({
    userId: v.userId,
    username: v.username,
    displayName: v.displayName,
    attestation: v.attType,
    authenticatorType: v.authType ?? 'platform',
    userVerification: v.userVerification,
    expiresAt: v.expiresAt,
  }),
);

const legacyRegisterTokenRoute = defineRoute({
  method: 'post',
  path: '/register/token',
  operationId: 'v3RegisterToken',
  summary: 'Create a registration token for a user, with the older parameters (attType, authType).',
  tag: 'private API',
  auth: 'ApiSecret',
  scope: 'token_register',
  body: legacyRegisterTokenSchema,
  // A bare JSON string, not {token}.
  responses: { 200: { description: 'The register_ token, as a bare JSON string.', schema: z.string() } },
});
/** The routes this file declares, in the order the OpenAPI document lists them. */
export const legacyRegisterRouteSpecs: readonly RouteSpec[] = [legacyRegisterTokenRoute];

export function legacyRegisterRoutes(services: Services): Router {
  const router = Router();
  const auth = routeAuthenticators(services);
  mountRoute(router, auth, legacyRegisterTokenRoute, async ({ body }, _req, res) => {
    res.json(await services.registration.createToken(authOf(res).appId, body));
  });
  return router;
}
