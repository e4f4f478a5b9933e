'use strict';
// Plain CommonJS, not TypeScript: the SQLite writer thread (sqliteWriterThread.js) loads it with
// Node's own require, in tests (from src/, no build) as in dist/. Types: stepCondition.d.ts.

/** Whether a step's condition holds for the rows kept so far (a missing row never does). */
function stepConditionHolds(condition, kept) {
  const row = kept[condition.step];
  if (row === undefined) return false;
  const value = Number(row[condition.column]);
  if (condition.equals !== undefined && value !== condition.equals) return false;
  if (condition.above !== undefined && !(value > condition.above)) return false;
  return true;
}

module.exports = { stepConditionHolds };
