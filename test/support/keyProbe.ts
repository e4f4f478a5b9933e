import express, { type ErrorRequestHandler } from 'express';
import supertest from 'supertest';
import { authOf, requireKey, type KeyHeader } from '../../src/server/http/middleware/authenticate';
import { ApiError } from '../../src/server/core/apiError';
import { sendProblem } from '../../src/server/http/sendProblem';
import type { ApiKeyAuthenticator } from '../../src/server/services/apps/apiKeys';

/** Where the probe mounts the route guarded by each header. */
const PATHS: Record<KeyHeader, string> = { ApiSecret: '/private', ApiKey: '/public' };

/**
 * A tiny Express app with one route per key header, each guarded by the service's own
 * `requireKey` and answering with the authenticated key (`{appId, kind, keyId, scopes}`). It lets
 * suites test authentication independently of which private/public routes exist.
 */
export function keyProbe(authenticator: ApiKeyAuthenticator) {
  const app = express();
  app.use(express.json());
  for (const header of ['ApiSecret', 'ApiKey'] as const) {
    app.post(PATHS[header], requireKey(authenticator, header), (_req, res) => {
      res.json(authOf(res));
    });
  }
  const problems: ErrorRequestHandler = (error, _req, res, _next) => {
    if (error instanceof ApiError) sendProblem(res, error.toProblem(), error.headers);
    else res.status(500).json({ unexpected: String(error) });
  };
  app.use(problems);
  const http = supertest(app);

  return {
    /** POSTs to the route guarded by `header`, sending the given headers (undefined = not sent). */
    call(header: KeyHeader, headers: Partial<Record<KeyHeader, string>> = {}) {
      const request = http.post(PATHS[header]).send({});
      for (const [name, value] of Object.entries(headers)) if (value !== undefined) request.set(name, value);
      return request;
    },
    /** Sends `value` in the header whose route it guards: the secret route for ApiSecret, etc. */
    as(header: KeyHeader, value: string) {
      return this.call(header, { [header]: value });
    },
  };
}

export type KeyProbe = ReturnType<typeof keyProbe>;

/** The header a key of this shape belongs in. */
export const headerFor = (key: string): KeyHeader => (key.includes(':secret:') ? 'ApiSecret' : 'ApiKey');

/** The status a probe call with `key` in its own header answers with. */
export async function statusWith(probe: KeyProbe, key: string): Promise<number> {
  return (await probe.as(headerFor(key), key)).status;
}
