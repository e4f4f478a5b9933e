import { MemoryStore, type ClientRateLimitInfo, type Options, type Store } from 'express-rate-limit';
import { RedisStore } from 'rate-limit-redis';
import type { RedisConnection } from '../redis/connection';

const unavailable = () => Object.assign(new Error('redis is unavailable'), { name: 'RedisUnavailable' });

/**
 * rate-limit-redis, made to survive Redis outages: while Redis is down a call fails at once (the
 * limiter then serves the request), and the store's scripts are loaded again after any failure,
 * so counting resumes by itself when Redis comes back, even if it was down at start-up.
 */
class RecoveringRedisStore implements Store {
  private readonly inner: RedisStore;
  private options: Options | undefined;
  private ready = false;

  constructor(
    private readonly redis: RedisConnection,
    prefix: string,
  ) {
    this.inner = new RedisStore({ sendCommand: (...args: string[]) => this.redis.sendCommand(args) as Promise<never>, prefix });
  }

  init(options: Options): void {
    this.options = options;
    this.prepare().catch(() => undefined);
  }

  private async prepare(): Promise<void> {
    if (this.ready) return;
    if (!this.options || !this.redis.isAvailable()) throw unavailable();
    await this.inner.init(this.options);
    this.ready = true;
  }

  private async run<T>(work: () => Promise<T>): Promise<T> {
    await this.prepare();
    try {
      return await work();
    } catch (error) {
      this.ready = false;
      throw error;
    }
  }

  get(key: string): Promise<ClientRateLimitInfo | undefined> {
    return this.run(() => this.inner.get(key));
  }

  increment(key: string): Promise<ClientRateLimitInfo> {
    return this.run(() => this.inner.increment(key));
  }

  async decrement(key: string): Promise<void> {
    await this.run(() => this.inner.decrement(key));
  }

  async resetKey(key: string): Promise<void> {
    await this.run(() => this.inner.resetKey(key));
  }
}

/** Counters in Redis under `<prefix>rl:<name>:` when there is a connection, else in this process. */
export function limitStore(name: string, redis: RedisConnection | undefined, prefix: string): Store {
  return redis ? new RecoveringRedisStore(redis, `${prefix}rl:${name}:`) : new MemoryStore();
}

/**
 * Counts failures instead of requests. The limiter only reads the count (as if this request were
 * one more failure), so that a client over the limit is refused before its key is even checked;
 * `count` adds one once a request has failed.
 */
export class FailureStore implements Store {
  private windowMs = 60_000;

  constructor(private readonly inner: Store) {}

  init(options: Options): void | Promise<void> {
    this.windowMs = options.windowMs;
    return this.inner.init?.(options);
  }

  async increment(key: string): Promise<ClientRateLimitInfo> {
    const info = await this.inner.get!(key);
    const failures = info && Number.isFinite(info.totalHits) ? info.totalHits : 0;
    const resetTime = failures > 0 && info?.resetTime ? info.resetTime : new Date(Date.now() + this.windowMs);
    return { totalHits: failures + 1, resetTime };
  }

  decrement(): void {}

  resetKey(key: string): Promise<void> | void {
    return this.inner.resetKey(key);
  }

  async count(key: string): Promise<void> {
    await this.inner.increment(key);
  }
}
