import * as admin from '../routes/admin';
import * as alias from '../routes/alias';
import { abortDeletionRoute } from '../routes/appDeletion';
import { setOwnFeaturesRoute } from '../routes/appFeatures';
import * as authConfigs from '../routes/authConfigs';
import * as credentials from '../routes/credentials';
import { listEventsRoute } from '../routes/events';
import { httpHealthRoute, mailHealthRoute, storageHealthRoute } from '../routes/health';
import { legacyAccountDeleteRoute } from '../routes/legacy/account';
import { legacyDeleteCredentialRoute, legacyListCredentialsRoute } from '../routes/legacy/credentials';
import { legacyRegisterTokenRoute } from '../routes/legacy/register';
import { legacySigninVerifyRoute } from '../routes/legacy/signin';
import { sendMagicLinkRoute } from '../routes/magicLinks';
import { metricsRoute } from '../routes/metrics';
import * as register from '../routes/register';
import * as signin from '../routes/signin';
import * as users from '../routes/users';
import { openApiDocumentRoute } from './documentRoute';
import type { RouteSpec } from '../http/routing/routeSpec';

/** Every route the route modules export, in the order they are declared. */
const routesOf = (module: Record<string, unknown>): RouteSpec[] =>
  Object.values(module).filter((value): value is RouteSpec => typeof value === 'object' && value !== null && 'operationId' in value && 'path' in value);

/** The current generation, at `/` and `/api`. The route-coverage test keeps this list equal to what is mounted. */
export const CURRENT_ROUTES: readonly RouteSpec[] = [
  openApiDocumentRoute,
  httpHealthRoute,
  storageHealthRoute,
  mailHealthRoute,
  metricsRoute,
  ...routesOf(admin),
  ...routesOf(register),
  ...routesOf(signin),
  ...routesOf(alias),
  ...routesOf(credentials),
  ...routesOf(users),
  sendMagicLinkRoute,
  ...routesOf(authConfigs),
  listEventsRoute,
  setOwnFeaturesRoute,
  abortDeletionRoute,
];

/** Where the older generation (`/v3`, `/api/v3`) differs; it answers everything else as the current one. */
export const LEGACY_DIFFERENCES: readonly RouteSpec[] = [
  legacyRegisterTokenRoute,
  legacySigninVerifyRoute,
  legacyListCredentialsRoute,
  legacyDeleteCredentialRoute,
  legacyAccountDeleteRoute,
];

/**
 * The older generation's routes: its differences, then every current route whose path it does not
 * define (a path it defines answers only its own methods there, see routes/legacy/index.ts).
 */
export function legacyRoutes(): RouteSpec[] {
  const ownPaths = new Set(LEGACY_DIFFERENCES.map((route) => route.path));
  return [...LEGACY_DIFFERENCES, ...CURRENT_ROUTES.filter((route) => !ownPaths.has(route.path))];
}
