/** What the middleware uses of prom-client's Counter and Histogram (its own types: a host without prom-client still compiles). */
interface Counter<L extends string> {
  inc(labels?: Partial<Record<L, string>>): void;
}
interface Histogram<L extends string> {
  observe(labels: Partial<Record<L, string>>, seconds: number): void;
}
interface PromClient {
  register: { getSingleMetric(name: string): unknown };
  Counter: new (config: { name: string; help: string; labelNames: readonly string[] }) => unknown;
  Histogram: new (config: { name: string; help: string; labelNames: readonly string[]; buckets: number[] }) => unknown;
}

/** The middleware's metrics, in prom-client's default registry, when the host has prom-client. */
export interface HostMetrics {
  signIns: Counter<never>;
  signUps: Counter<never>;
  stepUps: Counter<never>;
  recoveries: Counter<never>;
  refusals: Counter<'route' | 'reason'>;
  throttled: Counter<'route'>;
  mailsSent: Counter<'kind'>;
  serviceCalls: Histogram<'operation' | 'outcome'>;
}

/** Every metric the middleware exports, by name (the dashboard test checks its queries against them). */
export const HOST_METRIC_NAMES = [
  'passwordless_host_sign_ins_total',
  'passwordless_host_sign_ups_total',
  'passwordless_host_step_ups_total',
  'passwordless_host_recoveries_total',
  'passwordless_host_refusals_total',
  'passwordless_host_throttled_requests_total',
  'passwordless_host_mails_sent_total',
  'passwordless_host_service_call_duration_seconds',
] as const;

let made: HostMetrics | null | undefined;

/**
 * The metrics, made once per process in prom-client's default registry (the one a host's
 * `/metrics` serves with `register.metrics()`), or null when prom-client is not installed: it is an
 * optional peer, as for the service. Labels come from fixed sets only (route names, the error-code
 * dictionary, mail kinds, the client's operations): nothing a visitor sends.
 */
export function hostMetrics(): HostMetrics | null {
  if (made !== undefined) return made;
  let prom: PromClient;
  try {
    // An optional peer: the one package the middleware loads only if the host has it (see the boundary test).
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    prom = require('prom-client') as PromClient;
  } catch {
    made = null;
    return made;
  }
  const counter = <L extends string>(name: string, help: string, labelNames: readonly L[] = []) =>
    ((prom.register.getSingleMetric(name) ?? new prom.Counter({ name, help, labelNames })) as Counter<L>);
  made = {
    signIns: counter('passwordless_host_sign_ins_total', 'Sessions opened by a passkey sign-in.'),
    signUps: counter('passwordless_host_sign_ups_total', 'Sign-ups completed (the first passkey made, the session opened).'),
    stepUps: counter('passwordless_host_step_ups_total', 'Step-ups confirmed with a passkey.'),
    recoveries: counter('passwordless_host_recoveries_total', 'Sessions opened by a recovery link.'),
    refusals: counter('passwordless_host_refusals_total', "Requests to the middleware's routes answered with a 4xx problem (throttling aside), by route and errorCode.", ['route', 'reason'] as const),
    throttled: counter('passwordless_host_throttled_requests_total', 'Requests refused with 429 by the per-address throttle, by route.', ['route'] as const),
    mailsSent: counter('passwordless_host_mails_sent_total', "Mails the middleware had the service send, by kind ('verification', 'recovery', 'account_exists', 'other').", ['kind'] as const),
    serviceCalls: (prom.register.getSingleMetric('passwordless_host_service_call_duration_seconds') ??
      new prom.Histogram({
        name: 'passwordless_host_service_call_duration_seconds',
        help: "Time of the middleware's calls to the service's private API, by operation and outcome ('ok', the HTTP status of a refusal, 'unreachable').",
        labelNames: ['operation', 'outcome'],
        buckets: [0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      })) as Histogram<'operation' | 'outcome'>,
  };
  return made;
}
