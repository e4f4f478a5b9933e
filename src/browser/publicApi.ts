import type { CeremonySite } from './webauthnJson.js';

/** The service's public API as the page reaches it, and where the page runs. */
export interface PublicApi extends CeremonySite {
  apiUrl: string;
  apiKey: string;
}

/** A problem as the published client reports it (`from` says who refused). */
export interface CeremonyProblem {
  from: 'client' | 'server';
  errorCode: string;
  title: string;
  detail?: string;
  [extra: string]: unknown;
}

/** The published client's own version header, so that the service sees the same client either way. */
const CLIENT_VERSION = 'js-1.1.0';

/** POSTs one step of a ceremony to the service's public API, as the published client does. */
export async function callPublicApi<T>(api: PublicApi, path: string, body: unknown): Promise<{ ok: true; value: T } | { ok: false; problem: CeremonyProblem }> {
  const res = await fetch(`${api.apiUrl}${path}`, {
    method: 'POST',
    headers: { ApiKey: api.apiKey, 'Content-Type': 'application/json', 'Client-Version': CLIENT_VERSION },
    body: JSON.stringify(body),
  });
  const answer = (await res.json().catch(() => ({}))) as Record<string, unknown>;
  if (res.ok) return { ok: true, value: answer as T };
  return { ok: false, problem: { errorCode: 'unknown', title: `HTTP ${res.status}`, ...answer, from: 'server' } };
}
