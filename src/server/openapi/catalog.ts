import type { RouteSpec } from '../http/routing/routeSpec';
import { adminRouteSpecs } from '../routes/admin';
import { aliasRouteSpecs } from '../routes/alias';
import { appDeletionRouteSpecs } from '../routes/appDeletion';
import { appFeaturesRouteSpecs } from '../routes/appFeatures';
import { authConfigsRouteSpecs } from '../routes/authConfigs';
import { authenticatorsRouteSpecs } from '../routes/authenticators';
import { credentialsRouteSpecs } from '../routes/credentials';
import { eventsRouteSpecs } from '../routes/events';
import { healthRouteSpecs } from '../routes/health';
import { legacyAccountRouteSpecs } from '../routes/legacy/account';
import { legacyCredentialsRouteSpecs } from '../routes/legacy/credentials';
import { legacyRegisterRouteSpecs } from '../routes/legacy/register';
import { legacySigninRouteSpecs } from '../routes/legacy/signin';
import { magicLinksRouteSpecs } from '../routes/magicLinks';
import { mdsRouteSpecs } from '../routes/mds';
import { metricsRouteSpecs } from '../routes/metrics';
import { registerRouteSpecs } from '../routes/register';
import { reportingRouteSpecs } from '../routes/reporting';
import { signinRouteSpecs } from '../routes/signin';
import { usersRouteSpecs } from '../routes/users';
import { adminWebhooksRouteSpecs, webhooksRouteSpecs } from '../routes/webhooks';
import { adminWebhookDeliveriesRouteSpecs, webhookDeliveriesRouteSpecs } from '../routes/webhookDeliveries';
import { openApiDocumentRoute } from './documentRoute';

/** The current generation, at `/` and `/api`. The route-coverage test keeps this list equal to what is mounted. */
export const CURRENT_ROUTES: readonly RouteSpec[] = [
  openApiDocumentRoute,
  ...healthRouteSpecs,
  ...metricsRouteSpecs,
  ...adminRouteSpecs,
  ...adminWebhooksRouteSpecs,
  ...adminWebhookDeliveriesRouteSpecs,
  ...mdsRouteSpecs,
  ...registerRouteSpecs,
  ...signinRouteSpecs,
  ...aliasRouteSpecs,
  ...credentialsRouteSpecs,
  ...usersRouteSpecs,
  ...magicLinksRouteSpecs,
  ...authConfigsRouteSpecs,
  ...eventsRouteSpecs,
  ...authenticatorsRouteSpecs,
  ...reportingRouteSpecs,
  ...appFeaturesRouteSpecs,
  ...appDeletionRouteSpecs,
  ...webhooksRouteSpecs,
  ...webhookDeliveriesRouteSpecs,
];

/** Where the older generation (`/v3`, `/api/v3`) differs; it answers everything else as the current one. */
const LEGACY_DIFFERENCES: readonly RouteSpec[] = [
  ...legacyRegisterRouteSpecs,
  ...legacySigninRouteSpecs,
  ...legacyCredentialsRouteSpecs,
  ...legacyAccountRouteSpecs,
];

/**
 * The older generation's routes: its differences, then every current route whose path it does not
 * define (a path it defines answers only its own methods there, see routes/legacy/index.ts).
 */
export function legacyRoutes(): RouteSpec[] {
  const ownPaths = new Set(LEGACY_DIFFERENCES.map((route) => route.path));
  return [...LEGACY_DIFFERENCES, ...CURRENT_ROUTES.filter((route) => !ownPaths.has(route.path))];
}
