import { createLogger } from './logger';

describe('createLogger', () => {
  it('censors credential headers of any logged request, response or error object', () => {
    const lines: string[] = [];
    const logger = createLogger('info', { write: (line: string) => void lines.push(line) });
    const headers = { apisecret: 'app:secret:0123', apikey: 'app:public:4567', managementkey: 'mk-value', authorization: 'Bearer b-value', cookie: 'c-value', 'set-cookie': 's-value', accept: 'text/plain' };
    logger.info({ req: { headers }, res: { headers }, err: { headers } }, 'with headers');
    expect(lines).toHaveLength(1);
    for (const secret of ['0123', '4567', 'mk-value', 'b-value', 'c-value', 's-value']) expect(lines[0]).not.toContain(secret);
    expect(JSON.parse(lines[0]).req.headers).toEqual({ apisecret: '[redacted]', apikey: '[redacted]', managementkey: '[redacted]', authorization: '[redacted]', cookie: '[redacted]', 'set-cookie': '[redacted]', accept: 'text/plain' });
  });

  it('writes compact lines: no pid or hostname', () => {
    const lines: string[] = [];
    createLogger('info', { write: (line: string) => void lines.push(line) }).info({ a: 1 }, 'm');
    expect(Object.keys(JSON.parse(lines[0]))).toEqual(['level', 'time', 'a', 'msg']);
  });

  it('a silent logger leaves stdout alone: no listener on it, however many are made', () => {
    // The stdout sink listens for the stream's errors. Jest loads the module afresh for each test
    // file, and the silent services of each file added one more listener until Node warned.
    const before = process.stdout.listenerCount('error');
    for (let i = 0; i < 20; i += 1) createLogger('silent').info('never written');
    expect(process.stdout.listenerCount('error')).toBe(before);
  });
});
