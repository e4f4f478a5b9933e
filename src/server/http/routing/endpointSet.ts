import { routePathKey } from './routePathKey';

/** Each generation of the API, at `/` and under `/api`. */
const PREFIXES = ['', '/api', '/v3', '/api/v3'];

/**
 * A membership test for endpoint `paths` under every prefix of the API, matched as Express
 * matches a route (see routePathKey). One Set lookup instead of a router layer's regex per path.
 */
export function endpointSet(paths: readonly string[]): (path: string) => boolean {
  const members = new Set(PREFIXES.flatMap((prefix) => paths.map((path) => routePathKey(prefix + path))));
  return (path) => members.has(routePathKey(path));
}
