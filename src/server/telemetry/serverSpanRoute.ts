import { recordedConsolePath } from '../core/consolePath';

/** The parts of an Express request the finished server span is named from. */
export interface RoutedRequest {
  method?: string;
  url?: string;
  originalUrl?: string;
  /** Set by Express's router, and by the static route table (http/routing/staticRoutes.ts), to the matched declaration. */
  route?: { path?: unknown };
}

export interface ServerSpanRoute {
  /** `METHOD /route`, when a route answered. */
  name?: string;
  attributes: Record<string, string>;
}

/** The URL attributes of a server span (stable and old HTTP conventions) that hold the request's path. */
const PATH_ATTRIBUTES = ['url.path', 'http.target'] as const;
const URL_ATTRIBUTES = ['url.full', 'http.url'] as const;

/**
 * What a request's server span says once it is answered: its name `METHOD /route` and `http.route`,
 * from the route declaration that matched (the same pattern /metrics labels it by); and for a
 * console request, its path attributes replaced by the route's template (recordedConsolePath), so
 * that no user id in a console path reaches a span. `attributes` is what the span holds so far.
 */
export function serverSpanRoute(req: RoutedRequest, attributes: Readonly<Record<string, unknown>> | undefined): ServerSpanRoute {
  const route = typeof req.route?.path === 'string' ? req.route.path : undefined;
  const changed: Record<string, string> = {};
  if (route) changed['http.route'] = route;
  const url = req.originalUrl ?? req.url ?? '';
  const query = url.indexOf('?');
  const recorded = recordedConsolePath(query < 0 ? url : url.slice(0, query), route);
  if (recorded !== undefined) {
    for (const name of PATH_ATTRIBUTES) if (typeof attributes?.[name] === 'string') changed[name] = recorded;
    for (const name of URL_ATTRIBUTES) {
      const value = attributes?.[name];
      if (typeof value !== 'string') continue;
      try {
        changed[name] = new URL(recorded, value).href;
      } catch {
        changed[name] = recorded;
      }
    }
  }
  return { ...(route ? { name: `${req.method ?? 'GET'} ${route}` } : {}), attributes: changed };
}
