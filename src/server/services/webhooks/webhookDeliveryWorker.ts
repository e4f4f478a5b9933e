import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { createSecretKey, type KeyObject } from 'node:crypto';
import type { WebhookDestinationPolicy } from '../../core/config';
import { timeOrderedUuid } from '../../core/timeOrderedUuid';
import { TtlCache } from '../../core/ttlCache';
import type {
  ClaimedDelivery,
  StoredWebhookEndpoint,
  WebhookAttemptRow,
  WebhookDeliveryOutcome,
  WebhookDeliveryRepository,
  WebhookEndpointRepository,
} from '../../store/repositories';
import type { TokenKeyEncryption } from '../tokens/tokenKeyWrapping';
import { nextAttemptAt } from './nextAttemptAt';
import { resolveWebhookDestination, type AddressLookup } from './resolveWebhookDestination';
import { sendWebhook, type WebhookResponse } from './sendWebhook';
import { annotatedWithOutcome, deliverySpanOptions } from './deliverySpan';
import { detachedFromTrace, inSpan } from '../../core/telemetry/tracing';
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
  /** Endpoints sent to at once, at most: each endpoint's run goes on by itself in one of these slots. */
  concurrency?: number;
  /** Endpoints of one app sent to at once, at most: the other slots stay for other apps. */
  perAppConcurrency?: number;
  /** Deliveries of one endpoint claimed together and sent in order, one after another (a backlog drains in runs). */
  runLength?: number;
  /** How long (wall clock) a run may go on sending: past it, or when its next answer would take it past, the endpoint yields its turn. */
  runBudgetMs?: number;
  /** How long a claim holds unless renewed: a live worker renews what it holds every third of it, so only a dead worker's claims come back. */
  leaseMs?: number;
  /** How long one attempt may take, answer included (WEBHOOK_TIMEOUT_SECONDS). */
  timeoutMs?: number;
  lookup?: AddressLookup;
}

type WebhookEndpoint = StoredWebhookEndpoint;

const ATTEMPT_RETENTION_MS = 30 * 86_400_000;

/** A claimed delivery: what sending it needs. */
type Claimed = ClaimedDelivery;

/** One endpoint's run, while it is sent. */
interface Run {
  endpointId: string;
  tenant: string;
  /** What it holds (renewed by id). */
  ids: string[];
  /** Until when its claims hold: set by the claim, moved on by each renewal. */
  leaseUntil: number;
  done: Promise<void>;
}

/** What a `WebhookDeliveryWorker` is built from. */
export interface WebhookDeliveryWorkerDeps {
  /** The outbox's rows: claims, leases, attempts and states. */
  deliveries: WebhookDeliveryRepository;
  /** The endpoints sent to. */
  endpoints: WebhookEndpointRepository;
  policy: WebhookDestinationPolicy;
  encryption: TokenKeyEncryption;
  /** An endpoint was disabled here (a 410): its app's cached subscriptions go everywhere. */
  endpointDisabled: (appId: string) => void;
  logger: Logger;
  options: WebhookWorkerOptions;
}

/**
 * Sends the outbox. Each endpoint whose oldest pending delivery is due gets a run: that delivery
 * and up to `runLength - 1` after it, sent in order, one at a time, over a kept-alive connection to
 * the address checked again for the run. Runs go on by themselves in up to `concurrency` slots, at
 * most `perAppConcurrency` of them for one app, and a slot that frees is claimed again at once;
 * claims take turns between apps (WebhookDeliveryRepository.claim), and a run whose answers are slow yields
 * its endpoint's turn when its wall-clock budget is spent, so one tenant's slow or hanging receivers
 * cannot hold up another tenant's webhooks. Each delivery is signed with Standard Webhooks (both
 * secrets during a rotation). 2xx is delivered; 410 disables the endpoint and fails what it still
 * had pending; anything else is tried again on the backoff schedule for about three days, and what
 * followed it in the run waits behind it. Delivery is at least once: claims are leases that a live
 * worker renews; a worker that dies mid-send leaves them to lapse within one lease, and the delivery
 * is sent again, by another worker or its own successor, with the same `webhook-id`.
 */
export class WebhookDeliveryWorker {
  /** This process's claims: a random id of its own, so no other process (a successor with the same pid included) takes it for its own. */
  private readonly workerId = `worker:${randomBytes(12).toString('hex')}`;
  private readonly now: () => number;
  private readonly wallClock: () => number;
  private readonly random: () => number;
  private readonly concurrency: number;
  private readonly perAppConcurrency: number;
  private readonly runLength: number;
  private readonly runBudgetMs: number;
  private readonly agents: WebhookAgents;
  private readonly signers = new TtlCache<string, KeyObject>({ ttlMs: 600_000, maxEntries: 1_000 });
  private readonly leaseMs: number;
  private readonly timeoutMs: number;
  private readonly stopping = new AbortController();
  /** Runs under way, by endpoint; and how many of them each app has. */
  private readonly runs = new Map<string, Run>();
  private readonly runsPerApp = new Map<string, number>();
  /** The claim under way (one at a time), and whether another was asked for meanwhile. */
  private claiming: Promise<unknown> | undefined;
  private claimAgain = false;
  private renewing = false;
  private ticks: Promise<number> = Promise.resolve(0);
  private pollTimer: NodeJS.Timeout | undefined;
  private renewTimer: NodeJS.Timeout | undefined;
  private stopped = false;
  private readonly outcomeListeners = new Set<(outcome: DeliveryOutcome) => void>();

  private readonly deliveries: WebhookDeliveryRepository;
  private readonly endpoints: WebhookEndpointRepository;
  private readonly policy: WebhookDestinationPolicy;
  private readonly encryption: TokenKeyEncryption;
  private readonly endpointDisabled: (appId: string) => void;
  private readonly logger: Logger;
  private readonly options: WebhookWorkerOptions;

  constructor(deps: WebhookDeliveryWorkerDeps) {
    this.deliveries = deps.deliveries;
    this.endpoints = deps.endpoints;
    this.policy = deps.policy;
    this.encryption = deps.encryption;
    this.endpointDisabled = deps.endpointDisabled;
    this.logger = deps.logger;
    this.options = deps.options;
    this.now = this.options.now ?? Date.now;
    this.wallClock = this.options.wallClock ?? Date.now;
    this.random = this.options.random ?? Math.random;
    this.concurrency = Math.max(1, this.options.concurrency ?? 32);
    this.perAppConcurrency = Math.max(1, this.options.perAppConcurrency ?? 4);
    this.runLength = this.options.runLength ?? 100;
    this.runBudgetMs = this.options.runBudgetMs ?? 10_000;
    this.leaseMs = this.options.leaseMs ?? 15_000;
    this.timeoutMs = this.options.timeoutMs ?? 15_000;
    this.agents = new WebhookAgents(this.timeoutMs);
  }

  /** Tells `listener` how each attempt ended (the metrics); one listener is added once however often it is given. */
  onOutcome(listener: (outcome: DeliveryOutcome) => void): void {
    this.outcomeListeners.add(listener);
  }

  /** Polls every `pollIntervalMs` (none with 0) and renews the leases of what it sends every third of a lease. */
  start(): void {
    if (this.options.pollIntervalMs === 0 || this.stopped) return;
    this.pollTimer = setInterval(() => this.fill(), this.options.pollIntervalMs);
    this.renewTimer = setInterval(() => void this.renewLeases(), Math.max(250, Math.floor(this.leaseMs / 3)));
    this.pollTimer.unref();
    this.renewTimer.unref();
    this.fill();
  }

  /**
   * Deliveries to `endpointIds` were just written here: look now rather than at the next poll,
   * unless each of those endpoints has a run under way. Its head is held then, so a claim would
   * find nothing of it, and under load one claim after another found nothing (a sign-in with one
   * endpoint cost +69 % CPU instead of +13 %); the run's end claims again at once and takes them.
   */
  nudge(endpointIds?: readonly string[]): void {
    if (this.stopped || this.options.pollIntervalMs === 0) return;
    if (endpointIds !== undefined && endpointIds.every((id) => this.runs.has(id))) return;
    // Woken by a request, but not part of its trace: each delivery's span links to it instead.
    detachedFromTrace(() => this.fill());
  }

  /**
   * Tests (pollIntervalMs 0): one claim for the free slots, and its runs sent to the end. Ticks run
   * one after another. Resolves with how many deliveries were claimed.
   */
  tick(): Promise<number> {
    this.ticks = this.ticks
      .catch(() => 0)
      .then(async () => {
        if (this.stopped) return 0;
        const { runs, claimed } = await this.claimRuns();
        await Promise.all(runs.map((run) => run.done));
        return claimed;
      });
    return this.ticks;
  }

  /** Ticks until nothing is due (tests: everything due now is sent, in order). */
  async drain(maxTicks = 1000): Promise<void> {
    for (let tick = 0; tick < maxTicks; tick++) if ((await this.tick()) === 0) return;
  }

  /** Stops polling and abandons attempts under way (their claims are released or lapse, and they are sent again later). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.pollTimer);
    clearInterval(this.renewTimer);
    this.stopping.abort();
    await this.claiming;
    await this.ticks.catch(() => 0);
    await Promise.all([...this.runs.values()].map((run) => run.done));
    await this.agents.close();
  }

  /** Retention: attempts and finished deliveries after 30 days, and deliveries whose endpoint is gone. */
  async sweep(): Promise<void> {
    await this.deliveries.sweep(new Date(this.now() - ATTEMPT_RETENTION_MS));
  }

  /** Claims for the free slots now: one claim at a time, and one more after it when asked for meanwhile (a nudge, a run that ended). */
  private fill(): void {
    if (this.stopped) return;
    if (this.claiming) {
      this.claimAgain = true;
      return;
    }
    this.claiming = this.claimRuns()
      .catch((error: unknown) => this.logger.warn({ err: { name: (error as Error).name, message: (error as Error).message } }, 'webhook claim failed'))
      .finally(() => {
        this.claiming = undefined;
        if (this.claimAgain) {
          this.claimAgain = false;
          this.fill();
        }
      });
  }

  /** Claims runs for the free slots and starts each; they go on by themselves. */
  private async claimRuns(): Promise<{ runs: Run[]; claimed: number }> {
    const free = this.concurrency - this.runs.size;
    if (free <= 0) return { runs: [], claimed: 0 };
    const now = this.now();
    const leaseUntil = now + this.leaseMs;
    const claimed = await this.deliveries.claim({
      now,
      leaseUntil,
      workerId: this.workerId,
      limit: free,
      runLength: this.runLength,
      perApp: this.perAppConcurrency,
      sending: this.runsPerApp,
    });
    if (claimed.length === 0) return { runs: [], claimed: 0 };
    // Each endpoint's run in order: oldest first, as it was written.
    claimed.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const byEndpoint = new Map<string, Claimed[]>();
    for (const delivery of claimed) {
      const run = byEndpoint.get(delivery.endpointId);
      if (run) run.push(delivery);
      else byEndpoint.set(delivery.endpointId, [delivery]);
    }
    const endpoints = await this.endpoints.withIds([...byEndpoint.keys()]);
    this.agents.forgetIdle(now);
    const runs: Run[] = [];
    for (const [endpointId, deliveries] of byEndpoint) {
      // Stopping, or already sent to here (a lease that lapsed under a run still going): not started; the claims lapse.
      if (this.stopped || this.runs.has(endpointId)) {
        if (this.stopped) await this.release(deliveries);
        continue;
      }
      const tenant = deliveries[0].tenant;
      // An endpoint answers only for deliveries of its own app.
      const endpoint = endpoints.find((e) => e.id === endpointId && e.tenant === tenant);
      const run: Run = { endpointId, tenant, ids: deliveries.map((d) => d.id), leaseUntil, done: Promise.resolve() };
      this.runs.set(endpointId, run);
      this.runsPerApp.set(tenant, (this.runsPerApp.get(tenant) ?? 0) + 1);
      run.done = this.sendRun(deliveries, endpoint, run)
        .catch((error: unknown) => this.logger.warn({ err: { name: (error as Error).name, message: (error as Error).message }, endpoint: endpointId }, 'webhook delivery failed'))
        .finally(() => this.runEnded(run));
      runs.push(run);
    }
    return { runs, claimed: claimed.length };
  }

  /** A run is over: its slot is free, and is claimed again at once. */
  private runEnded(run: Run): void {
    this.runs.delete(run.endpointId);
    const left = (this.runsPerApp.get(run.tenant) ?? 1) - 1;
    if (left > 0) this.runsPerApp.set(run.tenant, left);
    else this.runsPerApp.delete(run.tenant);
    if (this.options.pollIntervalMs > 0) this.fill();
  }

  /** Moves on the lease of everything the runs under way hold: one statement, whatever their number. */
  private async renewLeases(): Promise<void> {
    if (this.renewing || this.runs.size === 0 || this.stopped) return;
    this.renewing = true;
    const runs = [...this.runs.values()];
    const leaseUntil = this.now() + this.leaseMs;
    try {
      await this.deliveries.renew(this.workerId, leaseUntil, runs.flatMap((run) => run.ids));
      for (const run of runs) run.leaseUntil = Math.max(run.leaseUntil, leaseUntil);
    } catch (error) {
      this.logger.warn({ err: { name: (error as Error).name, message: (error as Error).message } }, 'webhook claims not renewed');
    } finally {
      this.renewing = false;
    }
  }

  /**
   * Sends an endpoint's run in order, one at a time, over one kept-alive connection to the address
   * checked for this run. The first that is not delivered ends the run: it is recorded and
   * scheduled again, and the rest are released untouched (they are not attempts) so that order
   * holds. A run also ends, releasing the rest, when its budget is spent (the endpoint yields its
   * turn) or when its lease is no longer being renewed. What was delivered is recorded in one write.
   */
  private async sendRun(run: Claimed[], endpoint: WebhookEndpoint | undefined, state: Run): Promise<void> {
    const tenant = run[0].tenant;
    if (!endpoint) {
      // Written by a replica that had not yet heard of the endpoint's deletion.
      await this.deliveries.deleteOrphans(tenant, run.map((d) => d.id));
      return;
    }
    if (!endpoint.enabled) {
      await this.finishMany(run, { state: 'failed', lastError: 'the endpoint is disabled' }, []);
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
    const started = performance.now();
    let lastDurationMs = 0;
    for (let i = 0; i < run.length; i++) {
      const delivery = run[i];
      if (i > 0) {
        // Not due yet (held until something else happened, as magic_link.sent until the mail is taken): it and what follows wait.
        const held = delivery.nextAttemptAt.getTime() > this.now();
        // Slow answers: the next would likely take the run past its budget, so the endpoint yields its turn to the others waiting.
        const spent = performance.now() - started + lastDurationMs > this.runBudgetMs;
        // Renewals failing (the database unreachable): stop before the claims could lapse under a send.
        const lapsing = state.leaseUntil - this.now() < this.leaseMs / 4;
        if (this.stopping.signal.aborted || held || spent || lapsing) {
          await this.recordDelivered(delivered);
          await this.release(run.slice(i), spent && !held);
          return;
        }
      }
      const timestamp = new Date(this.wallClock());
      const response = await inSpan('webhook deliver', () => sendWebhook({
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
      }).then(annotatedWithOutcome), deliverySpanOptions(delivery, endpoint.id));
      lastDurationMs = response.durationMs;
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

  /**
   * Back to pending, unclaimed and unattempted: the head of the endpoint's next run. When the run
   * yields its turn (`yielded`), that head is due from now rather than from when it was written, so
   * that endpoints that have waited longer are claimed before it.
   */
  private async release(deliveries: Claimed[], yielded = false): Promise<void> {
    if (deliveries.length === 0) return;
    await this.deliveries.release(deliveries[0].tenant, this.workerId, deliveries.map((d) => d.id), yielded ? new Date(this.now()) : undefined);
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
    await this.deliveries.recordAttempts(attempts);
    const byStatus = new Map<number, string[]>();
    for (const { delivery, response } of delivered) {
      const ids = byStatus.get(response.status);
      if (ids) ids.push(delivery.id);
      else byStatus.set(response.status, [delivery.id]);
    }
    for (const [status, ids] of byStatus) await this.deliveries.markDelivered(tenant, this.workerId, status, ids);
    for (const _ of delivered) this.report('delivered');
  }

  private async record(delivery: Claimed, endpointId: string, response: WebhookResponse, reachable: boolean): Promise<void> {
    const now = this.now();
    const attempts = delivery.attempts + 1;
    const status = 'status' in response ? response.status : null;
    const error = 'error' in response ? response.error : null;
    const attempt: WebhookAttemptRow = { id: timeOrderedUuid(now), tenant: delivery.tenant, deliveryId: delivery.id, at: now, status, error, durationMs: response.durationMs };
    const common = { attempts, lastStatus: status, lastError: error };
    if (status === 410) {
      // The receiver says the endpoint is gone for good: stop sending to it at all (its pending deliveries fail with it).
      await this.deliveries.recordGone(attempt, { ...common, state: 'failed' }, this.workerId, endpointId, `The receiver answered 410 Gone on ${new Date(now).toISOString()}.`);
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
   * The deliveries' new state (unclaimed), then the attempts of those this worker still held (plain
   * statements, as in recordDelivered; a crash between the two loses an attempt's log line, not a delivery).
   */
  private async finishMany(deliveries: Claimed[], outcome: WebhookDeliveryOutcome, attempts: WebhookAttemptRow[]): Promise<void> {
    await this.deliveries.finish(deliveries[0].tenant, this.workerId, deliveries.map((d) => d.id), outcome, attempts);
  }
}
