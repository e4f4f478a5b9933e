import { TraceFlags } from '@opentelemetry/api';
import { formatTraceparent, parseTraceparent } from './traceparent';

describe('traceparent', () => {
  const spanContext = { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', traceFlags: TraceFlags.SAMPLED };

  it('round-trips a sampled span context', () => {
    const value = formatTraceparent(spanContext);
    expect(value).toBe('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01');
    expect(parseTraceparent(value)).toEqual({ ...spanContext, isRemote: true });
  });

  it('refuses anything that is not a version-00 traceparent with real ids', () => {
    for (const value of [undefined, null, 42, '', 'garbage', '01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01', '00-00000000000000000000000000000000-00f067aa0ba902b7-01', '00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01', '00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01']) {
      expect(parseTraceparent(value)).toBeUndefined();
    }
  });
});
