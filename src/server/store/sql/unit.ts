/**
 * A unit of work: statements of the hot path that commit together or not at all. Each step names a
 * statement of `STATEMENTS` and its parameters, already in the store's encoding. The steps are
 * data rather than code so that SQLite can run them on its writer thread (inside a savepoint of
 * the batch it is committing) and PostgreSQL in a transaction of its own, with the same outcome.
 */
export interface UnitStep {
  statement: string;
  params: Record<string, unknown>;
  /** Keeps the row the statement returned, for a later step's `onlyIf`. */
  as?: string;
  /** Runs the step only when a kept row's column holds this condition (a missing row never does). */
  onlyIf?: StepCondition;
  /** When the statement changed (or returned) no row, the whole unit is undone and answers this failure. */
  orFail?: string;
}

export interface StepCondition {
  step: string;
  column: string;
  equals?: number;
  above?: number;
}

/** Rows kept by the steps' `as`, by name (a step that returned none keeps undefined). */
export type KeptRows = Record<string, Record<string, unknown> | undefined>;

/** Committed (with the rows its steps kept), or undone with the failure of the step that required a row it did not get. */
export type UnitOutcome = { ok: true; kept: KeptRows } | { ok: false; failure: string };

/**
 * Whether a step's condition holds for the rows kept so far. It lives in plain JavaScript
 * (stepCondition.js) because the SQLite writer thread runs it too, and that thread loads its code
 * with Node's own require; PostgreSQL's units run this same function.
 */
export { stepConditionHolds } from './stepCondition';
