import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import { createSecretKey, type KeyObject } from 'node:crypto';
import type { WebhookDestinationPolicy } from '../../core/config';
import { timeOrderedUuid } from '../../core/timeOrderedUuid';
import { TtlCache } from '../../core/ttlCache';
import { claimWebhookDeliveries, insertWebhookAttempts, markWebhookDeliveriesDelivered, type ClaimedDelivery, type Db, type WebhookAttemptRow } from '../../store';
import type { Provider } from '../../store/migrate';
import type { TokenKeyEncryption } from '../tokens/tokenKeyWrapping';
import { nextAttemptAt } from './nextAttemptAt';
import { resolveWebhookDestination, type AddressLookup } from './resolveWebhookDestination';
import { sendWebhook, type WebhookResponse } from './sendWebhook';
import { WebhookAgents } from './webhookAgents';
import { openWebhookSecret } from './webhookSecretSealing';
import { signStandardWebhook } from './signStandardWebhook';

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
  /** Endpoints served per round. */
  batchSize?: number;
  /** Deliveries of one endpoint sent per round, in order, one after another (a backlog drains in runs). */
  runLength?: number;
  /** How long a claim holds: longer than an attempt can take, so that only a dead worker's claims come back. */
  leaseMs?: number;
  timeoutMs?: number;
  lookup?: AddressLookup;
}

type WebhookEndpoint = NonNullable<Awaited<ReturnType<Db['webhookEndpoint']['findFirst']>>>;

const ATTEMPT_RETENTION_MS = 30 * 86_400_000;

/** Time kept at the end of a lease to record the run's last attempt. */
const LEASE_MARGIN_MS = 5_000;

/** A claimed delivery: what sending it needs. */
type Claimed = ClaimedDelivery;

/**
 * Sends the outbox: claims, per endpoint whose oldest pending delivery is due, a run of its pending
 * deliveries from the oldest, and sends the run in order, one at a time, over a kept-alive
 * connection to the address checked again for the run; endpoints go in parallel. Each is signed
 * with Standard Webhooks (both secrets during a rotation). 2xx is delivered; 410 disables the
 * endpoint and fails what it still had pending; anything else is tried again on the backoff
 * schedule for about three days, and what followed it in the run waits behind it. Delivery is at
 * least once: a worker that dies mid-send leaves its claim to expire, and the delivery is sent again
 * with the same `webhook-id`.
 */
export class WebhookDeliveryWorker {
  private readonly host = hostname();
  private readonly workerId = `${this.host}:${process.pid}:${randomBytes(4).toString('hex')}`;
  private readonly now: () => number;
  private readonly wallClock: () => number;
  private readonly random: () => number;
  private readonly batchSize: number;
  private readonly runLength: number;
  private readonly agents: WebhookAgents;
  private readonly signers = new TtlCache<string, KeyObject>({ ttlMs: 600_000, maxEntries: 1_000 });
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
    this.runLength = options.runLength ?? 100;
    this.leaseMs = options.leaseMs ?? 60_000;
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.agents = new WebhookAgents(this.timeoutMs);
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
    await this.agents.close();
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
        .catch((error: unknown) => {
          this.logger.warn({ err: { name: (error as Error).name, message: (error as Error).message } }, 'webhook delivery round failed');
          return 0;
        })
        // A round that found work is followed at once by the next: a backlog drains without waiting for polls.
        .then((claimed) => {
          if (!this.stopped && !this.nudged) this.schedule(claimed > 0 ? 0 : this.options.pollIntervalMs);
        });
    }, delayMs);
    this.timer.unref();
  }

  private async round(): Promise<number> {
    const now = this.now();
    const leaseUntil = now + this.leaseMs;
    const claimed = await claimWebhookDeliveries(this.db, this.provider, { now, leaseUntil, workerId: this.workerId, limit: this.batchSize, runLength: this.runLength });
    if (claimed.length === 0) return 0;
    // Each endpoint's run in order: oldest first, as it was written.
    claimed.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const runs = new Map<string, Claimed[]>();
    for (const delivery of claimed) {
      const run = runs.get(delivery.endpointId);
      if (run) run.push(delivery);
      else runs.set(delivery.endpointId, [delivery]);
    }
    const endpoints = await this.db.webhookEndpoint.findMany({ where: { id: { in: [...runs.keys()] } } });
    this.agents.forgetIdle(now);
    await Promise.all(
      [...runs].map(([endpointId, run]) => {
        // An endpoint answers only for deliveries of its own app.
        const endpoint = endpoints.find((e) => e.id === endpointId && e.tenant === run[0].tenant);
        return this.sendRun(run, endpoint, leaseUntil).catch((error: unknown) =>
          this.logger.warn({ err: { name: (error as Error).name, message: (error as Error).message }, endpoint: endpointId }, 'webhook delivery failed'),
        );
      }),
    );
    return claimed.length;
  }

  /**
   * Sends an endpoint's run in order, one at a time, over one kept-alive connection to the address
   * checked for this run. The first that is not delivered ends the run: it is recorded and
   * scheduled again, and the rest are released untouched (they are not attempts) so that order
   * holds. What was delivered is recorded in one write.
   */
  private async sendRun(run: Claimed[], endpoint: WebhookEndpoint | undefined, leaseUntil: number): Promise<void> {
    const tenant = run[0].tenant;
    if (!endpoint) {
      // Written by a replica that had not yet heard of the endpoint's deletion.
      await this.db.webhookDelivery.deleteMany({ where: { id: { in: run.map((d) => d.id) }, tenant } });
      return;
    }
    if (!endpoint.enabled) {
      await this.finishMany(run, { state: 'failed', lastError: 'the endpoint is disabled', leaseUntil: null, claimedBy: null }, []);
      for (const _ of run) this.report('failed');
      return;
    }
    const secrets = this.secretsOf(endpoint, this.now());
    const destination = await resolveWebhookDestination(endpoint.url, this.policy, this.options.lookup);
    if (!destination.ok || secrets === undefined) {
      const error = !destination.ok ? `destination refused: the URL ${destination.reason}` : 'the signing secret cannot be opened (TOKEN_KEY_ENCRYPTION_KEY)';
      await this.record(run[0], endpoint.id, { error, durationMs: 0 }, destination.ok);
      await this.release(run.slice(1));
      return;
    }
    const dispatcher = this.agents.for(endpoint.id, destination.address, destination.family, this.now());
    const delivered: { delivery: Claimed; response: { status: number; durationMs: number } }[] = [];
    // A run stops in time for its last attempt to be recorded while the lease still holds.
    const lastStart = leaseUntil - this.timeoutMs - LEASE_MARGIN_MS;
    for (let i = 0; i < run.length; i++) {
      const delivery = run[i];
      // Not due yet (held until something else happened, as magic_link.sent until the mail is taken): it and what follows wait.
      if (this.stopping.signal.aborted || (i > 0 && (this.now() > lastStart || delivery.nextAttemptAt.getTime() > this.now()))) {
        await this.recordDelivered(delivered);
        await this.release(run.slice(i));
        return;
      }
      const timestamp = new Date(this.wallClock());
      const response = await sendWebhook({
        url: endpoint.url,
        dispatcher,
        headers: {
          'content-type': 'application/json',
          'user-agent': 'passwordless-selfhost-webhooks',
          'webhook-id': delivery.webhookId,
          'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
          'webhook-signature': secrets.map((key) => signStandardWebhook(key, delivery.webhookId, timestamp, delivery.payload)).join(' '),
        },
        body: delivery.payload,
        timeoutMs: this.timeoutMs,
        signal: this.stopping.signal,
      });
      if (this.stopping.signal.aborted) {
        // Not an attempt: the service is stopping. Released for whichever worker looks next.
        await this.recordDelivered(delivered);
        await this.release(run.slice(i));
        return;
      }
      if ('status' in response && response.status >= 200 && response.status < 300) {
        delivered.push({ delivery, response });
        continue;
      }
      await this.recordDelivered(delivered);
      await this.record(delivery, endpoint.id, response, true);
      await this.release(run.slice(i + 1));
      return;
    }
    await this.recordDelivered(delivered);
  }

  /** The endpoint's signers: its secret, and the previous one during a rotation; undefined when its secret does not open. */
  private secretsOf(endpoint: WebhookEndpoint, now: number): KeyObject[] | undefined {
    const current = this.signer(endpoint.secret, endpoint);
    if (!current) return undefined;
    const rotating = endpoint.previousSecret && endpoint.previousSecretExpiresAt && endpoint.previousSecretExpiresAt.getTime() > now;
    const previous = rotating ? this.signer(endpoint.previousSecret as string, endpoint) : undefined;
    return previous ? [current, previous] : [current];
  }

  /** Opening a sealed secret is an AES-GCM decryption; its HMAC key is kept per stored value (a rotation stores a new one). */
  private signer(stored: string, endpoint: WebhookEndpoint): KeyObject | undefined {
    const key = `${endpoint.tenant}:${endpoint.id}:${stored}`;
    const cached = this.signers.get(key);
    if (cached) return cached;
    const secret = openWebhookSecret(stored, this.encryption, endpoint.tenant, endpoint.id);
    if (secret === undefined) return undefined;
    // `whsec_` and the base64 of the key's bytes, as Standard Webhooks writes a secret.
    const signer = createSecretKey(Buffer.from(secret.replace(/^whsec_/, ''), 'base64'));
    this.signers.set(key, signer);
    return signer;
  }

  /** Back to pending, unclaimed and unattempted: the head of the endpoint's next run. */
  private async release(deliveries: Claimed[]): Promise<void> {
    if (deliveries.length === 0) return;
    await this.db.webhookDelivery.updateMany({
      where: { id: { in: deliveries.map((d) => d.id) }, tenant: deliveries[0].tenant, claimedBy: this.workerId },
      data: { leaseUntil: null, claimedBy: null },
    });
  }

  /**
   * Deliveries answered with 2xx: their attempts, then their state, as two plain statements rather
   * than an interactive transaction, which on SQLite under load waits behind the hot path's grouped
   * commits past Prisma's transaction timeout. The attempts are written first because they happened
   * whoever holds the delivery now; a crash between the two leaves a delivery pending with its
   * attempt logged, and it is sent again (at least once, as ever).
   */
  private async recordDelivered(delivered: { delivery: Claimed; response: { status: number; durationMs: number } }[]): Promise<void> {
    if (delivered.length === 0) return;
    const now = this.now();
    const tenant = delivered[0].delivery.tenant;
    const attempts = delivered.map(({ delivery, response }) => ({ id: timeOrderedUuid(now), tenant, deliveryId: delivery.id, at: now, status: response.status, error: null, durationMs: response.durationMs }));
    await this.writeAttempts(attempts);
    const byStatus = new Map<number, string[]>();
    for (const { delivery, response } of delivered) {
      const ids = byStatus.get(response.status);
      if (ids) ids.push(delivery.id);
      else byStatus.set(response.status, [delivery.id]);
    }
    for (const [status, ids] of byStatus) await markWebhookDeliveriesDelivered(this.db, this.provider, tenant, this.workerId, status, ids);
    for (const _ of delivered) this.report('delivered');
  }

  /** Attempt rows; one whose delivery is gone meanwhile (its endpoint was deleted) is left out. */
  private async writeAttempts(attempts: WebhookAttemptRow[]): Promise<void> {
    try {
      await insertWebhookAttempts(this.db, this.provider, attempts);
    } catch {
      const existing = new Set((await this.db.webhookDelivery.findMany({ where: { id: { in: attempts.map((a) => a.deliveryId) }, tenant: attempts[0].tenant }, select: { id: true } })).map((d) => d.id));
      await insertWebhookAttempts(this.db, this.provider, attempts.filter((a) => existing.has(a.deliveryId)));
    }
  }

  private async record(delivery: Claimed, endpointId: string, response: WebhookResponse, reachable: boolean): Promise<void> {
    const now = this.now();
    const attempts = delivery.attempts + 1;
    const status = 'status' in response ? response.status : null;
    const error = 'error' in response ? response.error : null;
    const attempt: WebhookAttemptRow = { id: timeOrderedUuid(now), tenant: delivery.tenant, deliveryId: delivery.id, at: now, status, error, durationMs: response.durationMs };
    const common = { attempts, lastStatus: status, lastError: error, leaseUntil: null, claimedBy: null };
    if (status === 410) {
      // The receiver says the endpoint is gone for good: stop sending to it at all.
      await this.db.$transaction(async (tx) => {
        await tx.webhookAttempt.create({ data: { ...attempt, at: new Date(attempt.at) } });
        await tx.webhookDelivery.updateMany({ where: { id: delivery.id, tenant: delivery.tenant, claimedBy: this.workerId }, data: { ...common, state: 'failed' } });
        await tx.webhookEndpoint.updateMany({ where: { id: endpointId, tenant: delivery.tenant }, data: { enabled: false, disabledReason: `The receiver answered 410 Gone on ${new Date(now).toISOString()}.` } });
        await tx.webhookDelivery.updateMany({ where: { endpointId, tenant: delivery.tenant, state: 'pending' }, data: { state: 'failed', lastError: 'the endpoint was disabled (410 Gone)', leaseUntil: null, claimedBy: null } });
      });
      this.endpointDisabled(delivery.tenant);
      this.report('gone');
      return;
    }
    const next = nextAttemptAt(attempts, delivery.createdAt.getTime(), now, this.random());
    await this.finishMany([delivery], next === undefined ? { ...common, state: 'failed' } : { ...common, nextAttemptAt: new Date(next) }, [attempt]);
    this.report(!reachable ? 'refused' : next === undefined ? 'failed' : 'retry');
  }

  private report(outcome: DeliveryOutcome): void {
    for (const listener of this.outcomeListeners) listener(outcome);
  }

  /**
   * The deliveries' new state, then the attempts of those this worker still held (plain statements,
   * as in recordDelivered; a crash between the two loses an attempt's log line, not a delivery).
   */
  private async finishMany(deliveries: Claimed[], data: Record<string, unknown>, attempts: WebhookAttemptRow[]): Promise<void> {
    const tenant = deliveries[0].tenant;
    const held = (await this.db.webhookDelivery.findMany({ where: { id: { in: deliveries.map((d) => d.id) }, tenant, claimedBy: this.workerId }, select: { id: true } })).map((d) => d.id);
    if (held.length === 0) return;
    const { count } = await this.db.webhookDelivery.updateMany({ where: { id: { in: held }, tenant, claimedBy: this.workerId }, data });
    const kept = attempts.filter((a) => held.includes(a.deliveryId));
    if (count > 0 && kept.length > 0) await this.writeAttempts(kept);
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
