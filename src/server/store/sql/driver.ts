import type { SqlCodec } from './codec';
import type { NewRegistration } from './queries';
import type { ComposedStatement, ReadStatement, WriteStatement } from './statements';
import type { UnitOutcome, UnitStep } from './unit';

/** A statement's answer: the row of one that returns rows (RETURNING), else how many rows it changed. */
export type StatementResult = Record<string, unknown> | { changes: number } | undefined;

/** The writes a driver may run together with the others of the same turn of the event loop (see `SqlDriver.batched`). */
export type BatchedWrite = 'redeemToken' | 'recordCredentialUse' | 'recordCredentialUseOnNewDay';

/**
 * The SQL layer: what the store needs of a database. `STATEMENTS` run by name, prepared once and
 * held on the driver itself (better-sqlite3, pg) rather than through Prisma, and units of them
 * committed together. One per database (sqliteDriver.ts, postgresDriver.ts), each with its codec.
 *
 * What a driver does beyond running a statement is a capability the caller asks for by name
 * (`batched`, `guardedWithDeliveries`, `composed`, `storeRegistration`): a driver never changes
 * what a call runs behind the caller's back.
 */
export interface SqlDriver {
  readonly codec: SqlCodec;
  read(statement: ReadStatement, params: Record<string, unknown>): Promise<Record<string, unknown> | undefined>;
  readAll(statement: ReadStatement, params: Record<string, unknown>): Promise<Record<string, unknown>[]>;
  /** One write, committed alone. */
  write(statement: WriteStatement, params: Record<string, unknown>): Promise<StatementResult>;
  /** One write that answers rows (UPDATE … RETURNING), committed alone; every row it answered. */
  writeAll(statement: WriteStatement, params: Record<string, unknown>): Promise<Record<string, unknown>[]>;
  /** Steps that commit together or not at all (see unit.ts). */
  unit(steps: UnitStep[]): Promise<UnitOutcome>;
  /**
   * A write that may share its statement and its commit with the same writes of the same turn of
   * the event loop (PostgreSQL: one statement over a JSON array; SQLite's writer commits each turn's
   * writes together anyway). True when it changed its row.
   */
  batched(statement: BatchedWrite, params: Record<string, unknown>): Promise<boolean>;
  /**
   * A guarded write (`orFail`, no RETURNING) and the outbox rows that report it, committed together
   * only if the write changed a row. PostgreSQL composes the two into one statement (a
   * data-modifying CTE: one round trip instead of four); SQLite runs them as a unit.
   */
  guardedWithDeliveries(write: UnitStep, deliveries: UnitStep): Promise<UnitOutcome>;
  /** A composed statement (`COMPOSED_STATEMENTS`) of `size` parts, committed alone; the rows it answered. */
  composed(statement: ComposedStatement, size: number, params: Record<string, unknown>): Promise<Record<string, unknown>[]>;
  /**
   * A registration's unit (`registrationSteps`) as one statement, where the database can
   * (PostgreSQL: a function of the schema, `pwl_store_registration`). Without it the steps run as a unit.
   */
  storeRegistration?(registration: NewRegistration): Promise<UnitOutcome>;
  close(): Promise<void>;
}
