/**
 * A path as Express compares it with a route's: case-insensitively, with one optional trailing
 * slash (collapseSlashes has already merged repeated ones). Lookups by path (the static route
 * table, the limited and CORS endpoint sets) key by this, so they match exactly what Express would.
 */
export function routePathKey(path: string): string {
  const lower = path.toLowerCase();
  return lower.length > 1 && lower.endsWith('/') ? lower.slice(0, -1) : lower;
}
