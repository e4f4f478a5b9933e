import { SPAN_LIMITS, spanLimitsFrom } from './spanLimits';

describe('spanLimitsFrom', () => {
  it('bounds every span to 1 KiB values and 64 attributes by default', () => {
    expect(spanLimitsFrom({})).toEqual(SPAN_LIMITS);
    expect(SPAN_LIMITS.attributeValueLengthLimit).toBeLessThanOrEqual(1024);
  });

  it("lets OpenTelemetry's variables lower a limit, never raise it", () => {
    expect(spanLimitsFrom({ OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT: '256', OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT: '32' })).toMatchObject({ attributeValueLengthLimit: 256, attributeCountLimit: 32 });
    expect(spanLimitsFrom({ OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT: '100', OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT: '500' }).attributeValueLengthLimit).toBe(100);
    expect(spanLimitsFrom({ OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT: '100000', OTEL_SPAN_LINK_COUNT_LIMIT: '1000' })).toEqual(SPAN_LIMITS);
    expect(spanLimitsFrom({ OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT: 'lots', OTEL_ATTRIBUTE_COUNT_LIMIT: '-1' })).toEqual(SPAN_LIMITS);
  });
});
