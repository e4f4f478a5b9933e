// GET /metrics for the host: the middleware's counters (and anything else in prom-client's default
// registry) in the Prometheus text format, only with `Authorization: Bearer <token>`. The token
// comes from configuration (HOST_METRICS_TOKEN); without one the route is not mounted at all.
import { createHash, timingSafeEqual } from 'node:crypto';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

const digest = (value) => createHash('sha256').update(value).digest();

/** Whether `given` is the token, in constant time (both hashed first: equal lengths, nothing learnt from timing). */
function tokenMatches(given, token) {
  return timingSafeEqual(digest(given), digest(token));
}

/** The route, or undefined when prom-client is not installed (it is optional for a host, as for the middleware). */
export function metricsRoute(token) {
  let register;
  try {
    ({ register } = require('prom-client'));
  } catch {
    return undefined;
  }
  return async (req, res, next) => {
    const header = req.get('authorization') ?? '';
    const given = header.startsWith('Bearer ') ? header.slice('Bearer '.length) : '';
    if (!tokenMatches(given, token)) {
      res.status(401).set('WWW-Authenticate', 'Bearer').set('Cache-Control', 'no-store').type('application/problem+json');
      res.send(JSON.stringify({ type: 'about:blank', title: 'A metrics token is required.', status: 401, errorCode: 'metrics_token' }));
      return;
    }
    try {
      res.set('Cache-Control', 'no-store').type(register.contentType).send(await register.metrics());
    } catch (error) {
      next(error);
    }
  };
}
