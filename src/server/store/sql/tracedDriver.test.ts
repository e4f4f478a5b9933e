import { context, trace } from '@opentelemetry/api';
import { node, tracing } from '@opentelemetry/sdk-node';
import { setTracingOn } from '../../core/telemetry/tracing';
import type { SqlDriver } from './driver';
import { tracedDriver } from './tracedDriver';

describe('tracedDriver', () => {
  const exporter = new tracing.InMemorySpanExporter();
  const provider = new node.NodeTracerProvider({ spanProcessors: [new tracing.SimpleSpanProcessor(exporter)] });
  beforeAll(() => {
    provider.register();
    setTracingOn(true);
  });
  afterAll(async () => {
    setTracingOn(false);
    await provider.shutdown();
    trace.disable();
    context.disable();
  });
  beforeEach(() => exporter.reset());

  const driver = {
    codec: {},
    read: async () => ({ descriptorId: 'x' }),
    unit: async () => ({ ok: true, kept: {} }),
    close: async () => undefined,
  } as unknown as SqlDriver;
  const underParent = <T>(work: () => Promise<T>) => trace.getTracer('test').startActiveSpan('request', (span) => work().finally(() => span.end()));

  it('names each statement’s span after it, with its table and database, and no parameter', async () => {
    const traced = tracedDriver(driver, 'postgresql');
    expect(await underParent(() => traced.read('findCredential', { tenant: 'tenant-value', descriptorId: 'SECRET-descriptor' }))).toEqual({ descriptorId: 'x' });
    await underParent(() => traced.unit([{ statement: 'redeemToken', params: { tokenId: 'SECRET-token' } }, { statement: 'insertWebhookDeliveries', params: { deliveries: '[]' } }]));
    const spans = exporter.getFinishedSpans().filter((s) => s.name.startsWith('sql '));
    expect(spans.map((s) => ({ name: s.name, attributes: s.attributes }))).toEqual([
      { name: 'sql findCredential', attributes: { 'db.system.name': 'postgresql', 'passwordless.statement': 'findCredential', 'db.collection.name': 'Credential' } },
      { name: 'sql unit', attributes: { 'db.system.name': 'postgresql', 'passwordless.statements': ['redeemToken', 'insertWebhookDeliveries'], 'passwordless.steps': 2 } },
    ]);
    expect(JSON.stringify(spans.map((s) => s.attributes))).not.toMatch(/SECRET|tenant-value/);
  });

  it('makes no span without a parent (a background job’s polling), and passes other members through', async () => {
    const traced = tracedDriver(driver, 'sqlite');
    await traced.read('findCredential', { tenant: 't', descriptorId: 'd' });
    expect(exporter.getFinishedSpans()).toEqual([]);
    expect(traced.codec).toBe(driver.codec);
    await expect(traced.close()).resolves.toBeUndefined();
  });
});
