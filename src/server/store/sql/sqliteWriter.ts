import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { UnitOutcome, UnitStep } from './unit';

/** What a statement answered: the row of a statement that returns one, else how many rows it changed. */
export type WriteResult = Record<string, unknown> | Record<string, unknown>[] | { changes: number } | undefined;

/** One statement, or a unit of statements that commit together (see writeUnit.ts). */
type Item = { statement: string; params: Record<string, unknown>; sql?: string; all?: boolean } | { unit: UnitStep[] };
type WireError = { message: string; code?: string };
type Outcome = { value: WriteResult | UnitOutcome } | { error: WireError };
type Reply = { outcomes: Outcome[] } | { failed: WireError };

/** What the thread starts with (its `workerData`). */
interface WriterData {
  /** better-sqlite3 as this process resolves it, so that the thread loads the same copy. */
  driver: string;
  filename: string;
  setup: string;
  timeoutMs: number;
  statements: Record<string, string>;
}

/**
 * The thread's program: a plain CommonJS file loaded by path (a function's source text would carry
 * jest's coverage counters into a thread where they do not exist). The build copies it to dist/.
 */
const WRITER_THREAD = join(__dirname, 'sqliteWriterThread.js');

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
    const w = new Worker(WRITER_THREAD, { workerData });
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
    /** Queues a write for the next commit; resolves with every row it answered (RETURNING) once committed. */
    writeAll(statement: string, params: Record<string, unknown>): Promise<Record<string, unknown>[]> {
      return enqueue({ statement, params, all: true }) as unknown as Promise<Record<string, unknown>[]>;
    },
    /**
     * Queues a statement the thread was not started with (a composed one), named so that the
     * thread prepares it once; resolves with every row it answered once committed.
     */
    writeComposed(name: string, sql: string, params: Record<string, unknown>): Promise<Record<string, unknown>[]> {
      return enqueue({ statement: name, params, sql, all: true }) as unknown as Promise<Record<string, unknown>[]>;
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
