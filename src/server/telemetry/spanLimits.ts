/** The most any span may hold: a request's path or User-Agent is cut to 1 KiB, whatever a client sends. */
export const SPAN_LIMITS = {
  attributeValueLengthLimit: 1024,
  attributeCountLimit: 64,
  linkCountLimit: 16,
  eventCountLimit: 16,
  attributePerLinkCountLimit: 16,
  attributePerEventCountLimit: 16,
} as const;

type Limits = { -readonly [K in keyof typeof SPAN_LIMITS]: number };

/** OpenTelemetry's variable for each limit, then its general one (for the two that have one). */
const VARIABLES: Record<keyof Limits, string[]> = {
  attributeValueLengthLimit: ['OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT', 'OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT'],
  attributeCountLimit: ['OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT', 'OTEL_ATTRIBUTE_COUNT_LIMIT'],
  linkCountLimit: ['OTEL_SPAN_LINK_COUNT_LIMIT'],
  eventCountLimit: ['OTEL_SPAN_EVENT_COUNT_LIMIT'],
  attributePerLinkCountLimit: ['OTEL_LINK_ATTRIBUTE_COUNT_LIMIT'],
  attributePerEventCountLimit: ['OTEL_EVENT_ATTRIBUTE_COUNT_LIMIT'],
};

/**
 * The span limits the service's tracer provider gets: OpenTelemetry's variables may lower each
 * of SPAN_LIMITS, never raise it (their default is no limit on a value's length).
 */
export function spanLimitsFrom(env: NodeJS.ProcessEnv): Limits {
  const limits = { ...SPAN_LIMITS } as Limits;
  for (const [name, variables] of Object.entries(VARIABLES) as [keyof Limits, string[]][]) {
    const given = variables.map((variable) => env[variable]?.trim()).find((value) => value !== undefined && value !== '');
    if (given !== undefined && /^\d{1,9}$/.test(given)) limits[name] = Math.min(limits[name], Number(given));
  }
  return limits;
}
