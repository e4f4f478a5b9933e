import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import { Webhook } from 'standardwebhooks';
import type { WebhookDestinationPolicy } from '../../core/config';
import { timeOrderedUuid } from '../../core/timeOrderedUuid';
import { claimWebhookDeliveries, type Db } from '../../store';
import type { Provider } from '../../store/migrate';
import type { TokenKeyEncryption } from '../tokens/tokenKeyWrapping';
import { nextAttemptAt } from './nextAttemptAt';
import { resolveWebhookDestination, type AddressLookup } from './resolveWebhookDestination';
import { sendWebhook, type WebhookResponse } from './sendWebhook';
import { openWebhookSecret } from './webhookSecretSealing';

/** How an attempt ended, for the metrics. */
export type DeliveryOutcome = 'delivered' | 'retry' | 'failed' | 'gone' | 'refused';

export interface WebhookWorkerOptions {
  /** How often due deliveries are looked for; 0 = only when `tick()` or `drain()` is called (tests). */
  pollIntervalMs: number;
  /** The clock of every schedule (backoff, leases, retention); default Date.now. */
  now?: () => number;
  /** The clock of the `webhook-timestamp` header, which receivers compare with their own; default Date.now. */
  wallClock?: () => number;
  /** In [0, 1), for the backoff's jitter; default Math.random. */
  random?: () => number;
  /** Deliveries claimed per round; at most one per endpoint. */
  batchSize?: number;
  /** How long a claim holds: longer than an attempt can take, so that only a dead worker's claims come back. */
  leaseMs?: number;
  timeoutMs?: number;
  lookup?: AddressLookup;
}

const ATTEMPT_RETENTION_MS = 30 * 86_400_000;

interface Claimed {
  id: string;
  tenant: string;
  endpointId: string;
  payload: string;
  attempts: number;
  createdAt: Date;
}

/**
 * Sends the outbox: claims due deliveries (each endpoint's oldest pending one only, so an
 * endpoint gets them in order and one at a time), signs each with Standard Webhooks (both secrets
 * during a rotation), checks the destination again and connects to the address it checked, and
 * records the attempt. 2xx is delivered; 410 disables the endpoint and fails what it still had
 * pending; anything else is tried again on the backoff schedule for about three days. Delivery is
 * at least once: a worker that dies mid-send leaves its claim to expire, and the delivery is sent
 * again with the same `webhook-id`.
 */
export class WebhookDeliveryWorker {
  private readonly host = hostname();
  private readonly workerId = `${this.host}:${process.pid}:${randomBytes(4).toString('hex')}`;
  private readonly now: () => number;
  private readonly wallClock: () => number;
  private readonly random: () => number;
  private readonly batchSize: number;
  private readonly leaseMs: number;
  private readonly timeoutMs: number;
  private readonly stopping = new AbortController();
  private rounds: Promise<number> = Promise.resolve(0);
  private timer: NodeJS.Timeout | undefined;
  private nudged = false;
  private stopped = false;
  private readonly outcomeListeners = new Set<(outcome: DeliveryOutcome) => void>();

  constructor(
    private readonly db: Db,
    private readonly provider: Provider,
    private readonly policy: WebhookDestinationPolicy,
    private readonly encryption: TokenKeyEncryption,
    /** An endpoint was disabled here (a 410): its app's cached subscriptions go everywhere. */
    private readonly endpointDisabled: (appId: string) => void,
    private readonly logger: Logger,
    private readonly options: WebhookWorkerOptions,
  ) {
    this.now = options.now ?? Date.now;
    this.wallClock = options.wallClock ?? Date.now;
    this.random = options.random ?? Math.random;
    this.batchSize = options.batchSize ?? 20;
    this.leaseMs = options.leaseMs ?? 60_000;
    this.timeoutMs = options.timeoutMs ?? 10_000;
  }

  /** Tells `listener` how each attempt ended (the metrics); one listener is added once however often it is given. */
  onOutcome(listener: (outcome: DeliveryOutcome) => void): void {
    this.outcomeListeners.add(listener);
  }

  /** Polls every `pollIntervalMs` (none with 0), after taking back what a dead process of this host held. */
  start(): void {
    if (this.options.pollIntervalMs === 0) return;
    this.rounds = this.releaseDeadClaims().then(
      () => 0,
      (error: unknown) => {
        this.logger.warn({ err: { name: (error as Error).name, message: (error as Error).message } }, 'webhook claims of dead processes not released');
        return 0;
      },
    );
    this.schedule(0);
  }

  /**
   * Claims held by a process of this host that is no longer running (killed mid-send, then
   * restarted) are released at once rather than when their lease ends, so that what it was sending
   * goes out again straight away. Claims of other hosts, and of processes still running, wait for
   * their lease.
   */
  async releaseDeadClaims(): Promise<number> {
    const prefix = `${this.host}:`;
    const holders = await this.db.webhookDelivery.findMany({ where: { state: 'pending', claimedBy: { startsWith: prefix } }, select: { claimedBy: true }, distinct: ['claimedBy'] });
    let released = 0;
    for (const { claimedBy } of holders) {
      const pid = Number(claimedBy?.slice(prefix.length).split(':')[0]);
      if (!Number.isInteger(pid) || pid === process.pid || isRunning(pid)) continue;
      released += (await this.db.webhookDelivery.updateMany({ where: { state: 'pending', claimedBy }, data: { claimedBy: null, leaseUntil: null } })).count;
    }
    return released;
  }

  /** Deliveries were just written here: look now rather than at the next poll. */
  nudge(): void {
    if (this.stopped || this.options.pollIntervalMs === 0 || this.nudged) return;
    this.nudged = true;
    this.schedule(0);
  }

  /** One round: claims what is due and sends it. Rounds run one after another. Resolves with how many were claimed. */
  tick(): Promise<number> {
    this.rounds = this.rounds.catch(() => 0).then(() => (this.stopped ? 0 : this.round()));
    return this.rounds;
  }

  /** Rounds until nothing is due (tests: everything due now is sent, in order). */
  async drain(maxRounds = 1000): Promise<void> {
    for (let round = 0; round < maxRounds; round++) if ((await this.tick()) === 0) return;
  }

  /** Stops polling and abandons attempts under way (their claims lapse and they are sent again later). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.stopping.abort();
    await this.rounds.catch(() => 0);
  }

  /** Retention: attempts and finished deliveries after 30 days, and deliveries whose endpoint is gone. */
  async sweep(): Promise<void> {
    const before = new Date(this.now() - ATTEMPT_RETENTION_MS);
    await this.db.webhookAttempt.deleteMany({ where: { at: { lt: before } } });
    await this.db.webhookDelivery.deleteMany({ where: { state: { in: ['delivered', 'failed'] }, createdAt: { lt: before } } });
  }

  private schedule(delayMs: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.nudged = false;
      void this.tick()
        .catch((error: unknown) => this.logger.warn({ err: { name: (error as Error).name, message: (error as Error).message } }, 'webhook delivery round failed'))
        .finally(() => {
          if (!this.stopped && !this.nudged) this.schedule(this.options.pollIntervalMs);
        });
    }, delayMs);
    this.timer.unref();
  }

  private async round(): Promise<number> {
    const now = this.now();
    const ids = await claimWebhookDeliveries(this.db, this.provider, { now, leaseUntil: now + this.leaseMs, workerId: this.workerId, limit: this.batchSize });
    if (ids.length === 0) return 0;
    const claimed = await this.db.webhookDelivery.findMany({
      where: { id: { in: ids }, claimedBy: this.workerId },
      select: { id: true, tenant: true, endpointId: true, payload: true, attempts: true, createdAt: true },
    });
    await Promise.all(claimed.map((delivery) => this.deliver(delivery).catch((error: unknown) => this.logger.warn({ err: { name: (error as Error).name, message: (error as Error).message }, delivery: delivery.id }, 'webhook delivery failed'))));
    return ids.length;
  }

  private async deliver(delivery: Claimed): Promise<void> {
    const { id, tenant } = delivery;
    const endpoint = await this.db.webhookEndpoint.findFirst({ where: { id: delivery.endpointId, tenant } });
    if (!endpoint) {
      // Written by a replica that had not yet heard of the endpoint's deletion.
      await this.db.webhookDelivery.deleteMany({ where: { id, tenant } });
      return;
    }
    if (!endpoint.enabled) {
      await this.finish(delivery, { state: 'failed', lastError: 'the endpoint is disabled' }, undefined);
      this.report('failed');
      return;
    }
    const now = this.now();
    const secrets = [openWebhookSecret(endpoint.secret, this.encryption, tenant, endpoint.id)];
    if (endpoint.previousSecret && endpoint.previousSecretExpiresAt && endpoint.previousSecretExpiresAt.getTime() > now) {
      secrets.push(openWebhookSecret(endpoint.previousSecret, this.encryption, tenant, endpoint.id));
    }
    let response: WebhookResponse;
    const destination = await resolveWebhookDestination(endpoint.url, this.policy, this.options.lookup);
    if (!destination.ok) {
      response = { error: `destination refused: the URL ${destination.reason}`, durationMs: 0 };
    } else if (secrets[0] === undefined) {
      response = { error: 'the signing secret cannot be opened (TOKEN_KEY_ENCRYPTION_KEY)', durationMs: 0 };
    } else {
      const timestamp = new Date(this.wallClock());
      const signature = secrets
        .filter((s): s is string => s !== undefined)
        .map((secret) => new Webhook(secret).sign(id, timestamp, delivery.payload))
        .join(' ');
      response = await sendWebhook({
        url: endpoint.url,
        address: destination.address,
        family: destination.family,
        headers: {
          'content-type': 'application/json',
          'user-agent': 'passwordless-selfhost-webhooks',
          'webhook-id': id,
          'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
          'webhook-signature': signature,
        },
        body: delivery.payload,
        timeoutMs: this.timeoutMs,
        signal: this.stopping.signal,
      });
      if (this.stopping.signal.aborted) {
        // Not an attempt: the service is stopping. Released for whichever worker looks next.
        await this.db.webhookDelivery.updateMany({ where: { id, tenant, claimedBy: this.workerId }, data: { leaseUntil: null, claimedBy: null } });
        return;
      }
    }
    await this.record(delivery, endpoint.id, response, destination.ok);
  }

  private async record(delivery: Claimed, endpointId: string, response: WebhookResponse, reachable: boolean): Promise<void> {
    const now = this.now();
    const attempts = delivery.attempts + 1;
    const status = 'status' in response ? response.status : null;
    const error = 'error' in response ? response.error : null;
    const attempt = { id: timeOrderedUuid(now), tenant: delivery.tenant, deliveryId: delivery.id, at: new Date(now), status, error, durationMs: response.durationMs };
    const common = { attempts, lastStatus: status, lastError: error, leaseUntil: null, claimedBy: null };
    if (status !== null && status >= 200 && status < 300) {
      await this.finish(delivery, { ...common, state: 'delivered' }, attempt);
      this.report('delivered');
      return;
    }
    if (status === 410) {
      // The receiver says the endpoint is gone for good: stop sending to it at all.
      await this.db.$transaction(async (tx) => {
        await tx.webhookAttempt.create({ data: attempt });
        await tx.webhookDelivery.updateMany({ where: { id: delivery.id, tenant: delivery.tenant, claimedBy: this.workerId }, data: { ...common, state: 'failed' } });
        await tx.webhookEndpoint.updateMany({ where: { id: endpointId, tenant: delivery.tenant }, data: { enabled: false, disabledReason: `The receiver answered 410 Gone on ${new Date(now).toISOString()}.` } });
        await tx.webhookDelivery.updateMany({ where: { endpointId, tenant: delivery.tenant, state: 'pending' }, data: { state: 'failed', lastError: 'the endpoint was disabled (410 Gone)', leaseUntil: null, claimedBy: null } });
      });
      this.endpointDisabled(delivery.tenant);
      this.report('gone');
      return;
    }
    const next = nextAttemptAt(attempts, delivery.createdAt.getTime(), now, this.random());
    await this.finish(delivery, next === undefined ? { ...common, state: 'failed' } : { ...common, nextAttemptAt: new Date(next) }, attempt);
    this.report(!reachable ? 'refused' : next === undefined ? 'failed' : 'retry');
  }

  private report(outcome: DeliveryOutcome): void {
    for (const listener of this.outcomeListeners) listener(outcome);
  }

  /** The delivery's new state and its attempt, together; only while this worker still holds the claim. */
  private async finish(delivery: Claimed, data: Record<string, unknown>, attempt: Record<string, unknown> | undefined): Promise<void> {
    await this.db.$transaction(async (tx) => {
      const { count } = await tx.webhookDelivery.updateMany({ where: { id: delivery.id, tenant: delivery.tenant, claimedBy: this.workerId }, data });
      if (count === 1 && attempt) await tx.webhookAttempt.create({ data: attempt as never });
    });
  }
}

/** Whether a process of this host with this id is running (signal 0 only asks). */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
