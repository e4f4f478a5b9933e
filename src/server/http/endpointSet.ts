/** Each generation of the API, at `/` and under `/api`. */
const PREFIXES = ['', '/api', '/v3', '/api/v3'];

/**
 * A membership test for endpoint `paths` under every prefix of the API, matched as Express
 * matches a route (case-insensitively, with one optional trailing slash; collapseSlashes has
 * already merged repeated ones). One Set lookup instead of a router layer's regex per path.
 */
export function endpointSet(paths: readonly string[]): (path: string) => boolean {
  const members = new Set(PREFIXES.flatMap((prefix) => paths.map((path) => (prefix + path).toLowerCase())));
  return (path) => {
    const lower = path.toLowerCase();
    return members.has(lower.length > 1 && lower.endsWith('/') ? lower.slice(0, -1) : lower);
  };
}
