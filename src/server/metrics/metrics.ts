import type { Request, Response } from 'express';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { LimitName } from '../core/config';
import type { PoolStats } from '../store';

/** The endpoints whose outcome is a ceremony's: each generation, at `/` and under `/api`. */
const CEREMONY = /^(?:\/+api)?(?:\/+v3)?\/+(register\/complete|signin\/complete|signin\/verify)\/*$/i;
const CEREMONY_LABELS: Record<string, string> = { 'register/complete': 'register_complete', 'signin/complete': 'signin_complete', 'signin/verify': 'signin_verify' };

export interface Metrics {
  registry: Registry;
  /** Counts and times a request that was answered, by route pattern and status (called by the access log). */
  observe(req: Request, res: Response, seconds: number): void;
  rateLimited(limit: LimitName): void;
  /** Counts how a webhook delivery attempt ended (delivered, retry, failed, gone, refused). */
  webhookOutcome(outcome: string): void;
  /** Counts webhook deliveries not queued (pending_limit, outbox_quota). */
  webhookNotQueued(reason: string, count: number): void;
}

/**
 * The service's Prometheus metrics, in a registry of its own (several services may share a
 * process in tests). Labels come only from fixed sets: a route's pattern (never the path with its
 * ids), the method, the status, an error code of the dictionary. Nothing a client sends, no key,
 * token or alias, becomes a label.
 */
export function createMetrics(options: { poolStats?: () => PoolStats } = {}): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'passwordless_' });

  const requests = new Counter({
    name: 'passwordless_http_requests_total',
    help: 'HTTP requests by method, route pattern and status.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'passwordless_http_request_duration_seconds',
    help: 'Time from receiving a request to finishing its answer, by method and route pattern.',
    labelNames: ['method', 'route'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  const ceremonies = new Counter({
    name: 'passwordless_ceremony_outcomes_total',
    help: "Outcomes of register/complete, signin/complete and signin/verify: 'success' or the problem's errorCode.",
    labelNames: ['ceremony', 'outcome'] as const,
    registers: [registry],
  });
  const refusals = new Counter({
    name: 'passwordless_rate_limit_refusals_total',
    help: 'Requests refused with 429 by a rate limit.',
    labelNames: ['limit'] as const,
    registers: [registry],
  });
  const webhookOutcomes = new Counter({
    name: 'passwordless_webhook_deliveries_total',
    help: "Webhook delivery attempts by outcome: 'delivered' (2xx), 'retry' (will be tried again), 'failed' (given up), 'gone' (410: endpoint disabled), 'refused' (destination not allowed).",
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const webhookNotQueued = new Counter({
    name: 'passwordless_webhook_deliveries_not_queued_total',
    help: "Webhook deliveries not queued: 'pending_limit' (a test event or replay refused, its endpoint has 100 pending), 'outbox_quota' (the app has WEBHOOK_OUTBOX_QUOTA pending: a test event or replay refused, or an event's deliveries dropped).",
    labelNames: ['reason'] as const,
    registers: [registry],
  });
  const { poolStats } = options;
  if (poolStats) {
    new Gauge({
      name: 'passwordless_db_pool_connections',
      help: 'Database connections of the pool by state (total, idle), and queries waiting for one (waiting).',
      labelNames: ['state'] as const,
      registers: [registry],
      collect() {
        const stats = poolStats();
        this.set({ state: 'total' }, stats.total);
        this.set({ state: 'idle' }, stats.idle);
        this.set({ state: 'waiting' }, stats.waiting);
      },
    });
  }

  // One pair of labelled children per (method, route, status): prom-client would hash the label
  // object on every call. Bounded: the parser accepts a fixed set of methods, routes are patterns.
  const children = new Map<string, { requests: { inc(): void }; duration: { observe(seconds: number): void } }>();
  const childrenOf = (method: string, route: string, status: number) => {
    const key = `${method} ${status} ${route}`;
    let found = children.get(key);
    if (!found) {
      found = { requests: requests.labels({ method, route, status }), duration: duration.labels({ method, route }) };
      children.set(key, found);
    }
    return found;
  };

  const observe = (req: Request, res: Response, seconds: number) => {
    // The pattern of the route that answered; a request no route took (unknown path, refused before routing) is "none".
    const route = (req.route as { path?: unknown } | undefined)?.path;
    const { requests: counted, duration: timed } = childrenOf(req.method, typeof route === 'string' ? route : 'none', res.statusCode);
    counted.inc();
    timed.observe(seconds);
    if (req.method !== 'POST') return;
    const ceremony = CEREMONY.exec(req.originalUrl.split('?', 1)[0]);
    if (ceremony) {
      const outcome = res.statusCode < 400 ? 'success' : ((res.locals.errorCode as string | undefined) ?? String(res.statusCode));
      ceremonies.inc({ ceremony: CEREMONY_LABELS[ceremony[1].toLowerCase()], outcome });
    }
  };

  // Made once per registry, so that the listeners of one process (sharing it) add one listener.
  const webhookOutcome = (outcome: string) => webhookOutcomes.inc({ outcome });
  return { registry, observe, rateLimited: (limit) => refusals.inc({ limit }), webhookOutcome, webhookNotQueued: (reason, count) => webhookNotQueued.inc({ reason }, count) };
}
