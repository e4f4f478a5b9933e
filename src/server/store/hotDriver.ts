import type { NewRegistration } from './hotPath';
import type { HotRead, HotWrite } from './hotStatements';
import type { UnitOutcome, UnitStep } from './writeUnit';

/** How a store writes values Prisma encodes its own way (SQLite: ISO text times and 0/1; PostgreSQL: timestamp(3) and booleans). */
export interface StoreEncoding {
  time(ms: number): unknown;
  bool(value: boolean): unknown;
  /** A stored time as epoch milliseconds. */
  timeOf(value: unknown): number;
  boolOf(value: unknown): boolean;
}

/** A statement's answer: the row of one that returns rows (RETURNING), else how many rows it changed. */
export type StatementResult = Record<string, unknown> | { changes: number } | undefined;

/**
 * What the hot path needs of a database: `HOT_STATEMENTS` run by name, prepared once and held on
 * the driver, and units of them committed together. One per provider (sqliteHotPath.ts,
 * postgresHotPath.ts); `hotPathOn` builds the hot path on either.
 */
export interface HotDriver extends StoreEncoding {
  read(statement: HotRead, params: Record<string, unknown>): Promise<Record<string, unknown> | undefined>;
  readAll(statement: HotRead, params: Record<string, unknown>): Promise<Record<string, unknown>[]>;
  write(statement: HotWrite, params: Record<string, unknown>): Promise<StatementResult>;
  unit(steps: UnitStep[]): Promise<UnitOutcome>;
  /**
   * A registration's unit (`registrationSteps`) as one statement, where the database can
   * (PostgreSQL: a function of the schema, `pwl_store_registration`). Without it the steps run as a unit.
   */
  storeRegistration?(registration: NewRegistration): Promise<UnitOutcome>;
  close(): Promise<void>;
}
