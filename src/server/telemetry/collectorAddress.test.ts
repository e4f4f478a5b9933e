import { collectorAddress } from './collectorAddress';

describe('collectorAddress', () => {
  it('is the traces path under OTEL_EXPORTER_OTLP_ENDPOINT, or the signal endpoint as given', () => {
    expect(collectorAddress({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe('http://collector:4318/v1/traces');
    expect(collectorAddress({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' })).toBe('http://collector:4318/v1/traces');
    expect(collectorAddress({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://b.example/otlp/traces' })).toBe('https://b.example/otlp/traces');
  });

  it("is OpenTelemetry's default without an endpoint, per protocol", () => {
    expect(collectorAddress({ OTEL_TRACES_EXPORTER: 'otlp' })).toBe('http://localhost:4318/v1/traces');
    expect(collectorAddress({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toBe('http://localhost:4317');
    expect(collectorAddress({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4317' })).toBe('http://collector:4317');
  });

  it('leaves out a user, a password, a query and a fragment', () => {
    expect(collectorAddress({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://user:s3cret@collector.example:4318/v1/traces?api_key=s3cret#x' })).toBe('https://collector.example:4318/v1/traces');
    expect(collectorAddress({ OTEL_EXPORTER_OTLP_ENDPOINT: 'not a url' })).toBe('an endpoint that is not a URL');
  });
});
