/**
 * docs/grafana-dashboard.json: every query names only metrics that the service or the middleware
 * really exports (read from a scrape of each, not from a list kept by hand), and each of the
 * middleware's metrics and the service's own has a panel.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { register } from 'prom-client';
import { createMetrics } from '../../src/server/metrics/metrics';
import { HOST_METRIC_NAMES, hostMetrics } from '../../src/express/telemetry/hostMetrics';

type Panel = { title: string; targets?: { expr: string }[]; panels?: Panel[] };
const dashboard = JSON.parse(readFileSync(join(__dirname, '..', '..', 'docs', 'grafana-dashboard.json'), 'utf8')) as { panels: Panel[] };
const queries = dashboard.panels.flatMap((p) => [p, ...(p.panels ?? [])]).flatMap((p) => (p.targets ?? []).map((t) => ({ panel: p.title, expr: t.expr })));

/** The series names a scrape shows: each `# TYPE` and, for histograms, their _bucket, _sum and _count. */
function exportedNames(text: string): Set<string> {
  const names = new Set<string>();
  for (const [, name, type] of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    names.add(name);
    if (type === 'histogram' || type === 'summary') for (const suffix of ['_bucket', '_sum', '_count']) names.add(`${name}${suffix}`);
  }
  return names;
}

const KEYWORDS = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'bool', 'and', 'or', 'unless', 'offset']);

/** The metric names a PromQL expression reads: its identifiers that are not functions, labels, variables or keywords. */
function metricsIn(expr: string): string[] {
  const bare = expr
    .replace(/"[^"]*"/g, '""')
    .replace(/\{[^}]*\}/g, '{}')
    .replace(/\[[^\]]*\]/g, '[]')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  return [...bare.matchAll(/(?<![\w$.])([a-zA-Z_:][a-zA-Z0-9_:]*)(?![\w:]|\s*\()/g)].map((m) => m[1]).filter((name) => !KEYWORDS.has(name));
}

describe('the Grafana dashboard', () => {
  let exported: Set<string>;
  beforeAll(async () => {
    const service = createMetrics({ poolStats: () => ({ total: 0, idle: 0, waiting: 0 }) });
    hostMetrics();
    exported = new Set([...exportedNames(await service.registry.metrics()), ...exportedNames(await register.metrics())]);
  });

  it('has queries, each naming at least one metric', () => {
    expect(queries.length).toBeGreaterThan(10);
    for (const { panel, expr } of queries) expect({ panel, metrics: metricsIn(expr).length > 0 }).toEqual({ panel, metrics: true });
  });

  it('names only metrics the service or the middleware exports', () => {
    const unknown = queries.flatMap(({ panel, expr }) => metricsIn(expr).filter((name) => !exported.has(name)).map((name) => `${panel}: ${name}`));
    expect(unknown).toEqual([]);
  });

  it('shows every metric of the middleware and every counter of the service', () => {
    const used = new Set(queries.flatMap(({ expr }) => metricsIn(expr)).map((name) => name.replace(/_(bucket|sum|count)$/, '')));
    const ours = [...HOST_METRIC_NAMES, 'passwordless_http_requests_total', 'passwordless_http_request_duration_seconds', 'passwordless_ceremony_outcomes_total', 'passwordless_rate_limit_refusals_total', 'passwordless_webhook_deliveries_total', 'passwordless_webhook_deliveries_not_queued_total', 'passwordless_db_pool_connections'];
    expect(ours.filter((name) => !used.has(name))).toEqual([]);
  });

  it('reads metric names out of PromQL, not functions, labels or variables', () => {
    expect(metricsIn('histogram_quantile(0.95, sum by (le, route) (rate(a_bucket{job=~"$x",le="1"}[$__rate_interval])))')).toEqual(['a_bucket']);
    expect(metricsIn('max(b_seconds{}) / sum(c_total) * 2 + sum without (x) (d) > bool 1e3')).toEqual(['b_seconds', 'c_total', 'd']);
  });
});
