import { hostname } from 'node:os';
import { openStore } from '../../src/server/store';
import { eventually } from '../support/eventually';
import { startServiceProcess, type ServiceProcess } from '../support/serviceProcess';
import type { TestApp, TestDatabase } from '../support/testService';
import { createTestDatabase } from '../support/testService';
import { startWebhookReceiver, verifyWebhook, type WebhookReceiver } from '../support/webhookReceiver';
import { givenUsers } from '../support/webhookUsers';

const PROCESS_TIMEOUT_MS = 60_000;
/** A short lease: a killed process's claims lapse within 5 s. */
const ENV = { WEBHOOK_ALLOW_INSECURE: 'true', WEBHOOK_ALLOW_PRIVATE_NETWORKS: '127.0.0.1', WEBHOOK_LEASE_SECONDS: '5' };

/** Whether the process still exists (signal 0 only asks). */
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('webhooks across a crash of the service', () => {
  let database: TestDatabase;
  let receiver: WebhookReceiver;
  let svc: ServiceProcess | undefined;

  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
    receiver = await startWebhookReceiver();
  });
  afterAll(async () => {
    await svc?.stop();
    await receiver.close();
    await database.drop();
  }, PROCESS_TIMEOUT_MS);

  it(
    'delivers every event after a SIGKILL with deliveries queued and one in flight; a delivery sent twice carries one webhook-id',
    async () => {
      svc = await startServiceProcess(ENV, database);
      const app: TestApp = await svc.createApp();
      const created = await svc.http.post('/webhooks/create').set('ApiSecret', app.apiSecret).send({ url: receiver.url('/in'), eventTypes: ['user.deleted'] });
      expect(created.status).toBe(201);
      // The receiver takes the first delivery and never answers: it is in flight when the service dies.
      receiver.hold = true;
      const users = ['u1', 'u2', 'u3', 'u4', 'u5'];
      await givenUsers(svc.http, app.apiSecret, users);
      for (const userId of users) expect((await svc.http.post('/users/delete').set('ApiSecret', app.apiSecret).send({ userId })).status).toBe(204);
      await eventually('the first delivery in flight', () => (receiver.received.length > 0 ? true : undefined));
      const killed = svc.pid;
      process.kill(killed, 'SIGKILL');
      await eventually('the service gone', () => (alive(killed) ? undefined : true));
      expect(receiver.received.map((w) => w.payload.data.userId)).toEqual(['u1']);

      receiver.hold = false;
      svc = await startServiceProcess(ENV, database);
      await eventually('every event delivered', () => (new Set(receiver.received.map((w) => w.id)).size === users.length ? true : undefined), 30_000);

      // u1 came twice (in flight when killed, sent again), with one webhook-id; nothing is missing; in order.
      const firsts = new Map<string, string>();
      for (const webhook of receiver.received) {
        verifyWebhook(webhook, created.body.secret);
        const userId = String(webhook.payload.data.userId);
        if (firsts.has(userId)) expect(firsts.get(userId)).toBe(webhook.id);
        else firsts.set(userId, webhook.id);
      }
      expect([...firsts.keys()]).toEqual(users);
      expect(receiver.received.filter((w) => w.payload.data.userId === 'u1')).toHaveLength(2);
    },
    PROCESS_TIMEOUT_MS,
  );

  it(
    'a process with WEBHOOK_WORKER=false only writes the outbox, and a process with it on sends what that one wrote',
    async () => {
      await svc?.stop();
      receiver.received.length = 0;
      svc = await startServiceProcess({ ...ENV, WEBHOOK_WORKER: 'false' }, database);
      const app: TestApp = await svc.createApp();
      const created = await svc.http.post('/webhooks/create').set('ApiSecret', app.apiSecret).send({ url: receiver.url('/api-replica'), eventTypes: ['user.deleted'] });
      expect(created.status).toBe(201);
      const users = ['w1', 'w2', 'w3'];
      await givenUsers(svc.http, app.apiSecret, users);
      for (const userId of users) expect((await svc.http.post('/users/delete').set('ApiSecret', app.apiSecret).send({ userId })).status).toBe(204);
      // The endpoint's log through the same process: written, never attempted.
      const log = await svc.http.get(`/webhooks/deliveries?id=${created.body.id}`).set('ApiSecret', app.apiSecret);
      expect(log.body.map((d: { state: string; attempts: number }) => [d.state, d.attempts])).toEqual(users.map(() => ['pending', 0]));
      await svc.stop();
      expect(receiver.received).toEqual([]);

      svc = await startServiceProcess(ENV, database);
      await eventually('every event delivered by the process that sends', () => (receiver.received.length >= users.length ? true : undefined), 30_000);
      expect(receiver.received.map((w) => w.payload.data.userId)).toEqual(users);
      for (const webhook of receiver.received) verifyWebhook(webhook, created.body.secret);
    },
    PROCESS_TIMEOUT_MS,
  );

  it(
    "sends a killed process's in-flight delivery again within one lease, whatever process now has the pid it had (reused, or a zombie not yet reaped)",
    async () => {
      await svc?.stop();
      receiver.received.length = 0;
      svc = await startServiceProcess(ENV, database);
      const app: TestApp = await svc.createApp();
      const created = await svc.http.post('/webhooks/create').set('ApiSecret', app.apiSecret).send({ url: receiver.url('/reused'), eventTypes: ['user.deleted'] });
      expect(created.status).toBe(201);
      receiver.hold = true;
      await givenUsers(svc.http, app.apiSecret, ['r1']);
      expect((await svc.http.post('/users/delete').set('ApiSecret', app.apiSecret).send({ userId: 'r1' })).status).toBe(204);
      const first = await eventually('the delivery in flight', () => receiver.received.find((w) => w.path === '/reused'));
      const killed = svc.pid;
      process.kill(killed, 'SIGKILL');
      await eventually('the service gone', () => (alive(killed) ? undefined : true));
      // Its claim, as a liveness check by process id would read it: held by a process of this host that
      // is running (this test's own process stands for a reused pid or an unreaped zombie).
      const store = openStore(database.url);
      try {
        const { count } = await store.db.webhookDelivery.updateMany({ where: { tenant: app.appId, claimedBy: { not: null } }, data: { claimedBy: `${hostname()}:${process.pid}:0badc0de` } });
        expect(count).toBe(1);
      } finally {
        await store.close();
      }

      receiver.hold = false;
      svc = await startServiceProcess(ENV, database);
      // Within one lease (5 s) and a poll; a check by pid would keep the claim for its whole lease.
      const again = await eventually('the delivery sent again', () => receiver.received.filter((w) => w.path === '/reused')[1], 30_000);
      expect(again.id).toBe(first.id);
      verifyWebhook(again, created.body.secret);
    },
    PROCESS_TIMEOUT_MS,
  );
});
