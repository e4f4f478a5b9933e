import { Agent } from 'undici';
import type { LookupFunction } from 'node:net';

/** An agent not used for this long is closed: a receiver that went quiet keeps no socket open here. */
const IDLE_MS = 60_000;

interface Pinned {
  address: string;
  family: 4 | 6;
  agent: Agent;
  usedAt: number;
}

/**
 * One undici agent per endpoint, kept alive between deliveries, whose lookup answers only the
 * address the destination check approved: a DNS answer that changed since the check (rebinding)
 * cannot redirect it, and a new approved address gets a new agent (the old one and its sockets are
 * closed). TLS still verifies the certificate for the URL's host name. One connection per endpoint:
 * an endpoint has one delivery in flight at a time.
 */
export class WebhookAgents {
  private readonly pinned = new Map<string, Pinned>();

  constructor(private readonly timeoutMs: number) {}

  /** The endpoint's agent for this address. */
  for(endpointId: string, address: string, family: 4 | 6, now: number): Agent {
    const known = this.pinned.get(endpointId);
    if (known && known.address === address && known.family === family) {
      known.usedAt = now;
      return known.agent;
    }
    if (known) void known.agent.destroy().catch(() => undefined);
    const lookup: LookupFunction = (_hostname, options, callback) => {
      if ((options as { all?: boolean }).all) (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address, family }]);
      else callback(null, address, family);
    };
    const agent = new Agent({ connect: { lookup, timeout: this.timeoutMs }, connections: 1, headersTimeout: this.timeoutMs, bodyTimeout: this.timeoutMs });
    this.pinned.set(endpointId, { address, family, agent, usedAt: now });
    return agent;
  }

  /** Closes the agents of endpoints that had nothing to send for a while. */
  forgetIdle(now: number): void {
    for (const [endpointId, pinned] of this.pinned) {
      if (now - pinned.usedAt < IDLE_MS) continue;
      this.pinned.delete(endpointId);
      void pinned.agent.destroy().catch(() => undefined);
    }
  }

  /** Closes every agent (the worker stops). */
  async close(): Promise<void> {
    const agents = [...this.pinned.values()].map((p) => p.agent);
    this.pinned.clear();
    await Promise.all(agents.map((agent) => agent.destroy().catch(() => undefined)));
  }
}
