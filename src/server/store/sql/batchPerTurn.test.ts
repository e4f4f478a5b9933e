import { batchPerTurn } from './batchPerTurn';

interface Row {
  app: string;
  id: string;
}
const row = (app: string, id: string): Row => ({ app, id });
const keyOf = (r: Row) => `${r.app}/${r.id}`;
const foreignKeyError = () => Object.assign(new Error('insert or update violates foreign key constraint'), { code: '23503' });

/** Records ids not recorded yet, one statement per call; `gone` apps refuse a statement as PostgreSQL's foreign key does. */
function recorder(gone: string[] = []) {
  const recorded = new Set<string>();
  const statements: string[][] = [];
  const runAll = async (rows: Row[]) => {
    statements.push(rows.map(keyOf));
    if (rows.some((r) => gone.includes(r.app))) throw foreignKeyError();
    const fresh = rows.map(keyOf).filter((k) => !recorded.has(k));
    for (const k of fresh) recorded.add(k);
    return fresh;
  };
  return { recorded, statements, runAll };
}

describe('writes batched per turn of the event loop', () => {
  it('runs what one turn asks for as one statement, and answers each as if alone; a refused duplicate finds the first one\'s row', async () => {
    const store = recorder();
    const redeem = batchPerTurn({ keyOf, runAll: store.runAll, duplicates: 'refuse' });
    expect(await Promise.all([redeem(row('a', '1')), redeem(row('a', '2')), redeem(row('b', '1')), redeem(row('a', '1'))])).toEqual([true, true, true, false]);
    expect(store.statements).toEqual([['a/1', 'a/2', 'b/1']]);
    // A later turn is a statement of its own; a/2 was recorded before.
    expect(await Promise.all([redeem(row('a', '2')), redeem(row('a', '3'))])).toEqual([false, true]);
    expect(store.statements).toHaveLength(2);
  });

  it('runs a deferred duplicate in the next turn, after the first one', async () => {
    // A counter that must rise: the second use of one passkey sees the first one's value.
    const counters = new Map<string, number>([['a/k', 0]]);
    const statements: string[][] = [];
    const use = batchPerTurn<Row & { counter: number }>({
      keyOf,
      duplicates: 'defer',
      runAll: async (uses) => {
        statements.push(uses.map((u) => `${keyOf(u)}@${u.counter}`));
        const updated = uses.filter((u) => (counters.get(keyOf(u)) ?? Infinity) < u.counter);
        for (const u of updated) counters.set(keyOf(u), u.counter);
        return updated.map(keyOf);
      },
    });
    const answers = await Promise.all([use({ ...row('a', 'k'), counter: 5 }), use({ ...row('a', 'k'), counter: 5 }), use({ ...row('a', 'k'), counter: 6 })]);
    expect(answers).toEqual([true, false, true]);
    expect(statements).toEqual([['a/k@5'], ['a/k@5'], ['a/k@6']]);
  });

  it('fails only the items of an app that is gone, when its refusal refuses the whole statement', async () => {
    const store = recorder(['gone']);
    const redeem = batchPerTurn({ keyOf, runAll: store.runAll, duplicates: 'refuse', retryAlone: (e) => (e as { code?: string }).code === '23503' });
    const outcomes = await Promise.allSettled([redeem(row('a', '1')), redeem(row('gone', '1')), redeem(row('gone', '1')), redeem(row('b', '1'))]);
    expect(outcomes.map((o) => (o.status === 'fulfilled' ? o.value : (o.reason as { code: string }).code))).toEqual([true, '23503', '23503', true]);
    expect([...store.recorded].sort()).toEqual(['a/1', 'b/1']);
  });

  it('fails every item of the turn on any other error, and the next turn starts afresh', async () => {
    let broken = true;
    const store = recorder();
    const redeem = batchPerTurn({ keyOf, duplicates: 'refuse', retryAlone: () => false, runAll: async (rows: Row[]) => (broken ? Promise.reject(new Error('connection lost')) : store.runAll(rows)) });
    expect((await Promise.allSettled([redeem(row('a', '1')), redeem(row('a', '2'))])).map((o) => o.status)).toEqual(['rejected', 'rejected']);
    broken = false;
    expect(await redeem(row('a', '1'))).toBe(true);
  });
});
