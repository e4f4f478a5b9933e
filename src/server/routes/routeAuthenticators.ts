import type { RouteAuthenticators } from '../http/routing/mountRoute';
import type { Services } from '../services';

/** What `mountRoute` checks a route's key with: the service's key checker and MANAGEMENT_KEY. */
export function routeAuthenticators(services: Services): RouteAuthenticators {
  return { keys: services.keys, managementKey: services.config.managementKey };
}
