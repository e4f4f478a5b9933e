import type { Logger } from 'pino';
import type { KeyKind } from '../../../shared/apiKeys';
import type { EventLog } from '../events/eventLog';
import { UNKNOWN_USER } from '../events/eventTypes';

/** Why a key of an existing app was refused: a wrong value for its id, or a locked key / frozen or deleting app. */
export type FailedKeyReason = 'invalid' | 'locked' | 'deleting';

interface Tally {
  appId: string;
  kind: KeyKind;
  keyId: string;
  reason: FailedKeyReason;
  address: string;
  firstAt: number;
  count: number;
}

const WINDOW_MS = 60_000;
/** Tallies held at most; a flood from more addresses than this within a minute is counted, not itemised. */
const MAX_TALLIES = 10_000;

const KIND_NAME: Record<KeyKind, 'Secret' | 'Public'> = { secret: 'Secret', public: 'Public' };

const times = (count: number) => (count === 1 ? 'once' : `${count} times`);

/** What a `FailedKeyUses` is built from. */
export interface FailedKeyUsesDeps {
  events: EventLog;
  logger: Logger | undefined;
  now?: () => number;
  windowMs?: number;
}

/**
 * The event log's record of refused keys, at most one event per app, key id, reason and client
 * address per minute, carrying how many refusals it stands for. A key's id is public (the last
 * four characters of a public key the page carries), so without this anyone could fill an app's
 * log for its whole retention with one event per guess.
 *
 * A tally opens at its first refusal and is written once its minute is over (checked by the
 * background jobs every second, and for all of them when the service stops), dated at its first
 * refusal, where it belongs in the log. Tallies live in this
 * process: each replica writes its own, so N replicas write at most N events per key, address and
 * minute.
 */
export class FailedKeyUses {
  private readonly tallies = new Map<string, Tally>();
  private overflow = 0;

  private readonly events: EventLog;
  private readonly logger: Logger | undefined;
  private readonly now: () => number;
  private readonly windowMs: number;

  constructor(deps: FailedKeyUsesDeps) {
    this.events = deps.events;
    this.logger = deps.logger;
    this.now = deps.now ?? Date.now;
    this.windowMs = deps.windowMs ?? WINDOW_MS;
  }

  note(appId: string, kind: KeyKind, keyId: string, reason: FailedKeyReason, address: string): void {
    const id = `${appId}\u0000${kind}\u0000${keyId}\u0000${reason}\u0000${address}`;
    const tally = this.tallies.get(id);
    if (tally) {
      tally.count += 1;
      return;
    }
    if (this.tallies.size >= MAX_TALLIES) {
      this.overflow += 1;
      return;
    }
    this.tallies.set(id, { appId, kind, keyId, reason, address, firstAt: this.now(), count: 1 });
  }

  /** Writes the tallies whose minute is over. */
  recordDue(): void {
    const now = this.now();
    for (const [id, tally] of this.tallies) {
      if (now - tally.firstAt < this.windowMs) continue;
      this.tallies.delete(id);
      this.record(tally);
    }
    if (this.overflow > 0) {
      this.logger?.warn({ refusals: this.overflow }, 'refused keys from too many addresses at once: not each recorded in the event log');
      this.overflow = 0;
    }
  }

  /** Writes every tally (the service is stopping). */
  recordAll(): void {
    for (const tally of this.tallies.values()) this.record(tally);
    this.tallies.clear();
  }

  private record({ appId, kind, keyId, reason, address, firstAt, count }: Tally): void {
    const what = reason === 'invalid' ? `A ${kind} key that does not match the key with this id` : `A locked ${kind} key (or one of a frozen app)`;
    this.events.record(appId, {
      type: reason === 'invalid' ? `ApiAuthInvalid${KIND_NAME[kind]}KeyUsed` : `ApiAuthDisabled${KIND_NAME[kind]}KeyUsed`,
      message: `${what} was used ${times(count)} from ${address} within a minute.`,
      subject: keyId,
      performedBy: UNKNOWN_USER,
      apiKeyId: keyId,
    }, firstAt);
  }
}
