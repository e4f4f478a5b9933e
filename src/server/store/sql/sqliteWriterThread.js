'use strict';
// The SQLite writer thread's program (started by sqliteWriter.ts, which holds the protocol's
// types: WriterData in, Item batches in, Reply out). Plain CommonJS loaded by path, so that the
// same file runs from src/ under jest (no build, coverage instrumentation or not) and from dist/.
//
// Each batch runs in one `BEGIN IMMEDIATE … COMMIT`; a statement that fails (a foreign-key
// refusal) fails only itself, and a unit runs inside a savepoint, so that it is undone alone when
// one of its statements fails or misses the row it requires. Waiting for a lock blocks this thread
// only, so the connection keeps SQLite's own busy timeout.
const { parentPort, workerData } = require('node:worker_threads');
const { stepConditionHolds } = require('./stepCondition');

const { driver, filename, setup, timeoutMs, statements } = workerData;
const Database = require(driver);
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

const prepared = new Map();
// A composed statement (one of a size) arrives with its text the first time the thread may need it.
const statement = (name, sql) => {
  let s = prepared.get(name);
  if (!s) prepared.set(name, (s = db.prepare(sql ?? statements[name])));
  return s;
};

const wire = (error) => ({ message: String(error?.message ?? error), code: error?.code });

const runStatement = ({ statement: name, params, sql, all }) => {
  const s = statement(name, sql);
  if (all) return s.all(params);
  return s.reader ? s.get(params) : { changes: s.run(params).changes };
};

const runUnit = (steps) => {
  savepoint.run();
  const undo = () => {
    // An I/O error may have rolled the whole transaction back, savepoint included.
    if (!db.inTransaction) return;
    rollbackToSavepoint.run();
    releaseSavepoint.run();
  };
  const kept = {};
  try {
    for (const step of steps) {
      if (step.onlyIf && !stepConditionHolds(step.onlyIf, kept)) continue;
      const s = statement(step.statement);
      let changed;
      if (s.reader) {
        const row = s.get(step.params);
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
  return { ok: true, kept };
};

const runBatch = (items) => {
  try {
    begin.run();
  } catch (error) {
    return { failed: wire(error) };
  }
  const outcomes = [];
  for (const item of items) {
    if (!db.inTransaction) {
      // An I/O error rolled the whole transaction back: nothing of the batch is committed.
      outcomes.push({ error: { message: 'the SQLite transaction was rolled back' } });
      continue;
    }
    try {
      outcomes.push({ value: 'unit' in item ? runUnit(item.unit) : runStatement(item) });
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

parentPort.on('message', (message) => {
  if (message === 'close') {
    db.close();
    parentPort.close();
    return;
  }
  parentPort.postMessage(runBatch(message.batch));
});
