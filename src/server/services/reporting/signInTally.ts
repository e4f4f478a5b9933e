import type { Logger } from 'pino';
import type { VerifyTokenType } from '../../../shared/tokens';
import { utcDateOf, utcDayOf } from '../../core/utcDay';
import type { ReportRepository, SignInCountRow } from '../../store/repositories';

/** How a sign-in was made, as the reports count it. */
export type SignInMethod = 'passkey' | 'magicLink' | 'generatedToken';

/**
 * The method of each kind of verified token. A registration's token (`passkey_register`) proves a
 * new passkey, not a sign-in: it is not counted, even where the host signs the new user in with it.
 */
const METHOD_OF: Record<VerifyTokenType, SignInMethod | undefined> = {
  passkey_signin: 'passkey',
  magic_link: 'magicLink',
  generated_signin: 'generatedToken',
  passkey_register: undefined,
};

type Counts = Record<SignInMethod, number>;

/** What a `SignInTally` is built from. */
export interface SignInTallyDeps {
  reports: ReportRepository;
  logger: Logger;
  /** The clock whose UTC day a sign-in is counted on. */
  now?: () => number;
  /** (app, day) pairs held at most between flushes; beyond it new pairs are dropped (and the drop is logged) rather than memory growing. */
  maxPairs?: number;
}

/**
 * Successful `/signin/verify` calls per app, UTC day and method. Counting is synchronous and
 * touches no database (a verify pays two map lookups and an increment); the tally is added to the
 * SignInCount table by `flush`, which the background jobs call every flush interval and on
 * shutdown. The write adds (an upsert), so replicas sum up, and a crash loses at most one interval.
 */
export class SignInTally {
  /** appId → UTC day number → counts: no string is built per sign-in. */
  private tally = new Map<string, Map<number, Counts>>();
  private pairs = 0;
  private dropped = 0;
  private writing: Promise<void> = Promise.resolve();

  private readonly reports: ReportRepository;
  private readonly logger: Logger;
  private readonly now: () => number;
  private readonly maxPairs: number;

  constructor(deps: SignInTallyDeps) {
    this.reports = deps.reports;
    this.logger = deps.logger;
    this.now = deps.now ?? Date.now;
    this.maxPairs = deps.maxPairs ?? 10_000;
  }

  /** Counts a verified token of `type` for the app, on today's UTC day. */
  count(appId: string, type: VerifyTokenType): void {
    const method = METHOD_OF[type];
    if (method === undefined) return;
    const counts = this.countsOf(appId, utcDayOf(this.now()));
    if (counts) counts[method] += 1;
    else this.dropped += 1;
  }

  /** Writes what was counted since the last flush; flushes run one after another. Never rejects: a failed write keeps its counts for the next. */
  flush(): Promise<void> {
    // write() handles the store's failures itself; the catch only keeps one surprise from failing every later flush.
    this.writing = this.writing.then(() => this.write()).catch((error: unknown) => this.logger.warn({ err: { name: (error as Error).name } }, 'sign-in count write failed'));
    return this.writing;
  }

  private async write(): Promise<void> {
    const batch = this.tally;
    this.tally = new Map();
    this.pairs = 0;
    if (this.dropped > 0) {
      this.logger.warn({ dropped: this.dropped }, 'sign-in tally full: sign-ins not counted');
      this.dropped = 0;
    }
    const rows: SignInCountRow[] = [];
    for (const [tenant, days] of batch) for (const [day, counts] of days) rows.push({ tenant, day: utcDateOf(day), ...counts });
    if (rows.length === 0) return;
    try {
      await this.reports.addSignIns(rows);
    } catch (error) {
      // Kept for the next flush (the database may be back by then), added to what was counted meanwhile.
      for (const [appId, days] of batch) {
        for (const [day, counts] of days) {
          const into = this.countsOf(appId, day);
          if (!into) {
            this.dropped += counts.passkey + counts.magicLink + counts.generatedToken;
            continue;
          }
          into.passkey += counts.passkey;
          into.magicLink += counts.magicLink;
          into.generatedToken += counts.generatedToken;
        }
      }
      this.logger.warn({ err: { name: (error as Error).name, message: (error as Error).message }, rows: rows.length }, 'sign-in count write failed');
    }
  }

  /** The counts of (app, day), made when new; undefined when the tally holds as many pairs as it may. */
  private countsOf(appId: string, day: number): Counts | undefined {
    let days = this.tally.get(appId);
    const counts = days?.get(day);
    if (counts) return counts;
    if (this.pairs >= this.maxPairs) return undefined;
    if (!days) this.tally.set(appId, (days = new Map()));
    const made: Counts = { passkey: 0, magicLink: 0, generatedToken: 0 };
    days.set(day, made);
    this.pairs += 1;
    return made;
  }
}
