import { takeTurns } from './takeTurns';

/** A task that finishes when the test says so, recording when it started. */
function gate(log: string[], name: string) {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, task: async () => (log.push(`start ${name}`), await opened, log.push(`end ${name}`), name) };
}

describe('takeTurns', () => {
  it('runs the tasks of one key one after another, in order, and those of other keys meanwhile', async () => {
    const inTurn = takeTurns();
    const log: string[] = [];
    const [a1, a2, b1] = [gate(log, 'a1'), gate(log, 'a2'), gate(log, 'b1')];
    const results = [inTurn('a', a1.task), inTurn('a', a2.task), inTurn('b', b1.task)];
    await new Promise((resolve) => setImmediate(resolve));
    expect(log).toEqual(['start a1', 'start b1']);
    b1.open();
    a2.open();
    await new Promise((resolve) => setImmediate(resolve));
    expect(log).toEqual(['start a1', 'start b1', 'end b1']);
    a1.open();
    expect(await Promise.all(results)).toEqual(['a1', 'a2', 'b1']);
    expect(log).toEqual(['start a1', 'start b1', 'end b1', 'end a1', 'start a2', 'end a2']);
  });

  it('goes on with the next task after one that failed, and passes the failure to its caller', async () => {
    const inTurn = takeTurns();
    const failed = inTurn('a', async () => {
      throw new Error('no');
    });
    const next = inTurn('a', async () => 'yes');
    await expect(failed).rejects.toThrow('no');
    expect(await next).toBe('yes');
  });
});
