import { Worker } from 'node:worker_threads';
import { stepConditionHolds, type UnitOutcome, type UnitStep } from './writeUnit';

/** What a statement answered: the row of a statement that returns one, else how many rows it changed. */
export type WriteResult = Record<string, unknown> | { changes: number } | undefined;

/** One statement, or a unit of statements that commit together (see writeUnit.ts). */
type Item = { statement: string; params: Record<string, unknown> } | { unit: UnitStep[] };
type WireError = { message: string; code?: string };
type Outcome = { value: WriteResult | UnitOutcome } | { error: WireError };
type Reply = { outcomes: Outcome[] } | { failed: WireError };

interface WriterData {
  driver: string;
  filename: string;
  setup: string;
  timeoutMs: number;
  statements: Record<string, string>;
}

/**
 * The writer thread's whole program. It is started from its source text, so it may use nothing of
 * this module's scope: `holds` is `stepConditionHolds`, passed in by its source text, and
 * everything else comes in `workerData`. Each batch runs in one `BEGIN IMMEDIATE … COMMIT`; a statement that fails (a
 * foreign-key refusal) fails only itself, and a unit runs inside a savepoint, so that it is undone
 * alone when one of its statements fails or misses the row it requires.
 * Waiting for a lock blocks this thread only, so the connection keeps SQLite's own busy timeout.
 */
function writerThread(holds: typeof stepConditionHolds): void {
  const { parentPort, workerData } = require('node:worker_threads') as typeof import('node:worker_threads');
  const { driver, filename, setup, timeoutMs, statements } = workerData as WriterData;
  const Database = require(driver) as typeof import('better-sqlite3');
  const db = new Database(filename, { timeout: timeoutMs });
  db.exec(setup);
  const [begin, commit, rollback, savepoint, rollbackToSavepoint, releaseSavepoint] = [
    'BEGIN IMMEDIATE',
    'COMMIT',
    'ROLLBACK',
    'SAVEPOINT unit',
    'ROLLBACK TO unit',
    'RELEASE unit',
  ].map((sql) => db.prepare(sql));
  const prepared = new Map<string, import('better-sqlite3').Statement>();
  const statement = (name: string) => {
    let s = prepared.get(name);
    if (!s) prepared.set(name, (s = db.prepare(statements[name])));
    return s;
  };
  const wire = (error: unknown): WireError => ({ message: String((error as Error)?.message ?? error), code: (error as { code?: string })?.code });
  const runStatement = (name: string, params: Record<string, unknown>): WriteResult => {
    const s = statement(name);
    return s.reader ? (s.get(params) as WriteResult) : { changes: s.run(params).changes };
  };
  const runUnit = (steps: UnitStep[]): UnitOutcome => {
    savepoint.run();
    const undo = () => {
      // An I/O error may have rolled the whole transaction back, savepoint included.
      if (!db.inTransaction) return;
      rollbackToSavepoint.run();
      releaseSavepoint.run();
    };
    const kept: Record<string, Record<string, unknown> | undefined> = {};
    try {
      for (const step of steps) {
        if (step.onlyIf && !holds(step.onlyIf, kept)) continue;
        const s = statement(step.statement);
        let changed: boolean;
        if (s.reader) {
          const row = s.get(step.params) as Record<string, unknown> | undefined;
          if (step.as) kept[step.as] = row;
          changed = row !== undefined;
        } else {
          changed = s.run(step.params).changes > 0;
        }
        if (step.orFail !== undefined && !changed) {
          undo();
          return { ok: false, failure: step.orFail };
        }
      }
    } catch (error) {
      undo();
      throw error;
    }
    releaseSavepoint.run();
    return { ok: true };
  };
  const runBatch = (items: Item[]): Reply => {
    try {
      begin.run();
    } catch (error) {
      return { failed: wire(error) };
    }
    const outcomes: Outcome[] = [];
    for (const item of items) {
      if (!db.inTransaction) {
        // An I/O error rolled the whole transaction back: nothing of the batch is committed.
        outcomes.push({ error: { message: 'the SQLite transaction was rolled back' } });
        continue;
      }
      try {
        outcomes.push({ value: 'unit' in item ? runUnit(item.unit) : runStatement(item.statement, item.params) });
      } catch (error) {
        outcomes.push({ error: wire(error) }); // only this statement (or unit) was undone; the transaction goes on
      }
    }
    try {
      if (!db.inTransaction) throw new Error('the SQLite transaction was rolled back');
      commit.run();
    } catch (error) {
      if (db.inTransaction) rollback.run();
      return { failed: wire(error) };
    }
    return { outcomes };
  };
  parentPort!.on('message', (message: { batch: Item[] } | 'close') => {
    if (message === 'close') {
      db.close();
      parentPort!.close();
      return;
    }
    parentPort!.postMessage(runBatch(message.batch));
  });
}

const WRITER_SOURCE = `(${writerThread.toString()})(${stepConditionHolds.toString()})`;

const asError = ({ message, code }: WireError): Error => Object.assign(new Error(message), code === undefined ? {} : { code });

/**
 * Writes on a SQLite file, group-committed on a thread of their own: every write queued while the
 * previous commit is on its way runs in the next `BEGIN IMMEDIATE … COMMIT`, and each caller is
 * answered once that commit is on disk. With `synchronous = FULL` a commit costs an fsync (about a
 * millisecond on the VM this was measured on); on the event loop that millisecond blocked every
 * request, here the loop goes on serving the next ones while the thread waits for the disk. The
 * thread's connection gets `setup` (the service's connection setup) before its first statement.
 *
 * `statements` names the SQL a write may run; a write answers its statement's row (a statement
 * that returns one, such as `DELETE … RETURNING`) or its number of changed rows.
 */
export function startSqliteWriter(filename: string, setup: string, timeoutMs: number, statements: Record<string, string>) {
  type Pending = { item: Item; resolve: (value: WriteResult | UnitOutcome) => void; reject: (error: Error) => void };
  const workerData: WriterData = { driver: require.resolve('better-sqlite3'), filename, setup, timeoutMs, statements };
  let worker: Worker | undefined;
  let queue: Pending[] = [];
  let inFlight: Pending[] | undefined;
  let scheduled = false;
  let closed: Promise<void> | undefined;
  let drained: (() => void)[] = [];

  const settleDrained = () => {
    if (scheduled || inFlight || queue.length > 0) return;
    const waiting = drained;
    drained = [];
    waiting.forEach((resolve) => resolve());
  };

  const failAll = (error: Error) => {
    const lost = [...(inFlight ?? []), ...queue];
    inFlight = undefined;
    queue = [];
    worker = undefined;
    lost.forEach((p) => p.reject(error));
    settleDrained();
  };

  const started = (): Worker => {
    if (worker) return worker;
    const w = new Worker(WRITER_SOURCE, { eval: true, workerData });
    w.unref(); // referenced only while a batch is on its way, so an idle writer keeps no process alive
    w.on('message', (reply: Reply) => {
      const batch = inFlight ?? [];
      inFlight = undefined;
      w.unref();
      if ('failed' in reply) batch.forEach((p) => p.reject(asError(reply.failed)));
      else batch.forEach((p, i) => { const o = reply.outcomes[i]; 'error' in o ? p.reject(asError(o.error)) : p.resolve(o.value); });
      if (queue.length > 0) send();
      else settleDrained();
    });
    // A thread that dies takes its batch with it (its transaction never committed); the next write starts a new one.
    w.on('error', (error) => failAll(error));
    w.on('exit', () => {
      if (worker === w) failAll(new Error('the SQLite writer thread stopped'));
    });
    return (worker = w);
  };

  const send = () => {
    scheduled = false;
    if (inFlight || queue.length === 0) return;
    const w = started();
    inFlight = queue;
    queue = [];
    w.ref();
    w.postMessage({ batch: inFlight.map((p) => p.item) });
  };

  const enqueue = (item: Item): Promise<WriteResult | UnitOutcome> => {
    if (closed) return Promise.reject(new Error('the SQLite writer is closed'));
    return new Promise((resolve, reject) => {
      queue.push({ item, resolve, reject });
      // Everything queued in this turn of the event loop goes in one batch.
      if (!scheduled && !inFlight) {
        scheduled = true;
        setImmediate(send);
      }
    });
  };

  return {
    /** Queues a write for the next commit; resolves with its result once committed. */
    write(statement: string, params: Record<string, unknown>): Promise<WriteResult> {
      return enqueue({ statement, params }) as Promise<WriteResult>;
    },
    /** Queues a unit for the next commit; resolves once committed, or undone with its failure. */
    unit(steps: UnitStep[]): Promise<UnitOutcome> {
      return enqueue({ unit: steps }) as Promise<UnitOutcome>;
    },
    /** Lets what is queued commit, then stops the thread. */
    close(): Promise<void> {
      closed ??= (async () => {
        await new Promise<void>((resolve) => {
          drained.push(resolve);
          settleDrained();
        });
        const w = worker;
        if (!w) return;
        worker = undefined;
        const exited = new Promise((resolve) => w.once('exit', resolve));
        // Referenced again while it closes: an idle, unreferenced thread would let the process
        // end before this promise (and whatever awaits the store's close) settles.
        w.ref();
        w.postMessage('close');
        await exited;
      })();
      return closed;
    },
  };
}
