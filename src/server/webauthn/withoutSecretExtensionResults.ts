/**
 * Client extension results as the service may keep them: without the PRF outputs (`prf.results`)
 * and a large blob read (`largeBlob.blob`). Those are the page's secrets; the browser module never
 * sends them, and when another client does, they are dropped here, before anything reads, stores or
 * logs the request. Everything else is passed on as it came.
 */
export function withoutSecretExtensionResults(results: Record<string, unknown>): Record<string, unknown> {
  const kept: Record<string, unknown> = { ...results };
  for (const [name, secret] of [['prf', 'results'], ['largeBlob', 'blob']] as const) {
    const value = kept[name];
    if (value && typeof value === 'object' && !Array.isArray(value) && secret in value) {
      const { [secret]: _dropped, ...rest } = value as Record<string, unknown>;
      kept[name] = rest;
    }
  }
  return kept;
}
