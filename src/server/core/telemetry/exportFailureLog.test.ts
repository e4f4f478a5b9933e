import { ExportFailureLog, exportFailureKind } from './exportFailureLog';

describe('ExportFailureLog', () => {
  const setUp = () => {
    let now = 1_000_000;
    const lines: Record<string, unknown>[] = [];
    const log = new ExportFailureLog({ collector: 'http://collector:4318/v1/traces', now: () => now });
    log.logTo((fields) => lines.push(fields));
    return { log, lines, advance: (ms: number) => (now += ms) };
  };
  const refused = Object.assign(new Error('connect ECONNREFUSED 10.0.0.9:4318'), { code: 'ECONNREFUSED' });

  it('logs the first failure at once, then at most one line a minute with the failures since the last', () => {
    const { log, lines, advance } = setUp();
    log.note(refused);
    expect(lines).toEqual([{ collector: 'http://collector:4318/v1/traces', error: 'ECONNREFUSED', failedExports: 1 }]);
    for (let i = 0; i < 30; i++) {
      advance(1_000);
      log.note(refused);
    }
    expect(lines).toHaveLength(1);
    advance(29_999); // 59.999 s after the first line
    log.note(refused);
    expect(lines).toHaveLength(1);
    advance(1);
    log.note(refused);
    expect(lines).toHaveLength(2);
    expect(lines[1]).toEqual({ collector: 'http://collector:4318/v1/traces', error: 'ECONNREFUSED', failedExports: 32 });
    advance(60_000);
    log.note(new Error('Timeout'));
    expect(lines[2]).toMatchObject({ error: 'timeout', failedExports: 1 });
  });

  it('counts failures before it has a logger, and says them with the first line', () => {
    const lines: Record<string, unknown>[] = [];
    const log = new ExportFailureLog({ collector: 'c' });
    log.note(refused);
    log.note(refused);
    log.logTo((fields) => lines.push(fields));
    log.note(refused);
    expect(lines).toEqual([{ collector: 'c', error: 'ECONNREFUSED', failedExports: 3 }]);
  });
});

describe('exportFailureKind', () => {
  it('names a code or a kind, never a message', () => {
    expect(exportFailureKind(Object.assign(new Error('Bad Request'), { name: 'OTLPExporterError', code: 400, data: '{"secret":1}' }))).toBe('HTTP 400');
    expect(exportFailureKind(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }))).toBe('ECONNRESET');
    expect(exportFailureKind(new Error('Request timed out'))).toBe('timeout');
    expect(exportFailureKind(new TypeError('x: http://user:pw@h'))).toBe('TypeError');
    expect(exportFailureKind('a string')).toBe('Error');
    expect(exportFailureKind(undefined)).toBe('Error');
  });
});
