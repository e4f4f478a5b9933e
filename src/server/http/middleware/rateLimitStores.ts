import { MemoryStore, type ClientRateLimitInfo, type Options, type Store } from 'express-rate-limit';
import { RedisStore } from 'rate-limit-redis';
import type { RedisConnection } from '../../redis/connection';

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
