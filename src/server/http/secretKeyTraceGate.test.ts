import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mayContinueTrace } from '../core/telemetry/incomingTraceTrust';
import { checkSecretKeyBeforeTracing, secretBesideTraceHeaders } from './secretKeyTraceGate';

const TRACEPARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
const SECRET = 'shop:secret:0123456789abcdef0123456789abcdef';

describe('secretBesideTraceHeaders', () => {
  it('is the ApiSecret of a request that also carries trace headers', () => {
    expect(secretBesideTraceHeaders({ apisecret: ` ${SECRET} `, traceparent: TRACEPARENT })).toBe(SECRET);
    expect(secretBesideTraceHeaders({ apisecret: SECRET, baggage: 'k=v' })).toBe(SECRET);
  });

  it('is nothing without a secret or without trace headers: such requests do not wait for a check', () => {
    expect(secretBesideTraceHeaders({ apisecret: SECRET })).toBeUndefined();
    expect(secretBesideTraceHeaders({ apikey: 'shop:public:0123', traceparent: TRACEPARENT })).toBeUndefined();
    expect(secretBesideTraceHeaders({ apisecret: '  ', traceparent: TRACEPARENT })).toBeUndefined();
  });
});

describe('checkSecretKeyBeforeTracing', () => {
  let server: Server;
  const checked: string[] = [];
  let seen: { trusted: boolean; headers: IncomingHttpHeaders }[] = [];
  let url: string;

  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push({ trusted: mayContinueTrace(req.headers), headers: req.headers });
      res.end('ok');
    });
    checkSecretKeyBeforeTracing(server, async (value) => {
      checked.push(value);
      if (value.endsWith('broken')) throw new Error('store closed');
      return value === SECRET;
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));
  beforeEach(() => {
    checked.length = 0;
    seen = [];
  });

  const send = (headers: Record<string, string>) => fetch(url, { headers }).then((res) => res.text());

  it('hands a request on once its secret is checked, trusted only when the secret is valid', async () => {
    expect(await send({ ApiSecret: SECRET, traceparent: TRACEPARENT })).toBe('ok');
    expect(await send({ ApiSecret: 'shop:secret:ffffffffffffffffffffffffffffffff', traceparent: TRACEPARENT })).toBe('ok');
    expect(checked).toHaveLength(2);
    expect(seen.map((s) => s.trusted)).toEqual([true, false]);
  });

  it('answers a request whose check fails, untrusted', async () => {
    expect(await send({ ApiSecret: 'shop:secret:broken', traceparent: TRACEPARENT })).toBe('ok');
    expect(seen.map((s) => s.trusted)).toEqual([false]);
  });

  it('checks nothing for a request without both a secret and trace headers', async () => {
    expect(await send({ ApiKey: 'shop:public:0123456789abcdef0123456789abcdef', traceparent: TRACEPARENT })).toBe('ok');
    expect(await send({ ApiSecret: SECRET })).toBe('ok');
    expect(checked).toEqual([]);
    expect(seen.map((s) => s.trusted)).toEqual([false, false]);
  });
});
