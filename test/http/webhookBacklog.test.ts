/**
 * The webhook outbox's backlog as the console's health page reads it: pending and due deliveries
 * over every app, each counted only up to a cap (a LIMIT subquery, so its cost is the cap's and not
 * the backlog's), and the earliest next attempt.
 */
import { createLogger } from '../../src/server/core/logger';
import { BACKLOG_COUNT_CAP } from '../../src/server/services/webhooks/webhookDeliveryLog';
import { providers, startTestService, warnIfPostgresSkipped, type TestService } from '../support/testService';

warnIfPostgresSkipped();

/** Nothing is sent (WEBHOOK_WORKER off): what is queued stays pending. */
const ENV = { WEBHOOK_ALLOW_INSECURE: 'true', WEBHOOK_ALLOW_PRIVATE_NETWORKS: '127.0.0.1', WEBHOOK_WORKER: 'false' };
const T0 = Date.parse('2026-03-01T12:00:00Z');

describe.each(providers())('the webhook backlog on %s', (provider) => {
  let svc: TestService;
  const clock = { now: T0 };

  beforeAll(async () => {
    svc = await startTestService(provider, ENV, { now: () => clock.now, flushIntervalMs: 0 });
  });

  afterAll(async () => {
    await svc?.close();
  });

  it('is empty on a new service', async () => {
    await expect(svc.services.webhookDeliveries.backlog()).resolves.toEqual({ pending: 0, due: 0, earliestNextAttemptAt: null, cap: BACKLOG_COUNT_CAP });
  });

  it('counts every app’s pending deliveries, those due, and the earliest next attempt; a count past the cap stops at cap + 1', async () => {
    const [one, two] = [await svc.createApp(), await svc.createApp()];
    const endpointOf = async (appId: string) => (await svc.services.webhooks.create(appId, { url: 'http://127.0.0.1:9/in', eventTypes: ['aliases.updated'] })).id;
    const [a, b] = [await endpointOf(one.appId), await endpointOf(two.appId)];
    await svc.services.webhookDeliveries.sendTest(one.appId, a);
    clock.now += 1000;
    await svc.services.webhookDeliveries.sendTest(one.appId, a);
    await svc.services.webhookDeliveries.sendTest(two.appId, b);

    expect(await svc.services.webhookDeliveries.backlog()).toEqual({ pending: 3, due: 3, earliestNextAttemptAt: new Date(T0), cap: BACKLOG_COUNT_CAP });

    // Through the repository, with a cap of 2 and times before and between the queued ones.
    const repositories = svc.services.store.repositories({ now: () => clock.now, outboxQuota: svc.config.webhookDelivery.outboxQuota, logger: createLogger('silent') });
    await expect(repositories.webhookDeliveries.backlog(2, new Date(T0 + 1000))).resolves.toMatchObject({ pending: 3, due: 3 });
    await expect(repositories.webhookDeliveries.backlog(1, new Date(T0 + 1000))).resolves.toMatchObject({ pending: 2, due: 2 });
    await expect(repositories.webhookDeliveries.backlog(5, new Date(T0))).resolves.toMatchObject({ pending: 3, due: 1 });
    await expect(repositories.webhookDeliveries.backlog(5, new Date(T0 - 1))).resolves.toEqual({ pending: 3, due: 0, earliestNextAttemptAt: new Date(T0) });
  });
});
