/** The span attributes that may hold a URL's query string, by the old and the stable HTTP conventions. */
const URL_ATTRIBUTES = ['http.target', 'http.url', 'url.full', 'url.query'] as const;

/**
 * A span's URL attributes with their query strings cut off (a query may carry a token or a
 * webhook endpoint's secret): what the http and undici instrumentations' hooks set back on the
 * span they just started. `attributes` is what the SDK's span holds so far.
 */
export function withoutQueries(attributes: Readonly<Record<string, unknown>> | undefined): Record<string, string> {
  const changed: Record<string, string> = {};
  if (!attributes) return changed;
  for (const name of URL_ATTRIBUTES) {
    const value = attributes[name];
    if (typeof value !== 'string') continue;
    if (name === 'url.query') changed[name] = '';
    else if (value.includes('?')) changed[name] = value.slice(0, value.indexOf('?'));
  }
  return changed;
}
