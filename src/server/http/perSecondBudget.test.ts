import { perSecondBudget } from './perSecondBudget';

describe('perSecondBudget', () => {
  it('grants `limit` times in a second, then nothing until the next second', () => {
    let now = 5_000;
    const take = perSecondBudget(3, () => now);
    expect([take(), take(), take(), take()]).toEqual([true, true, true, false]);
    now = 5_999;
    expect(take()).toBe(false);
    now = 6_000;
    expect([take(), take(), take(), take()]).toEqual([true, true, true, false]);
    now = 60_000;
    expect(take()).toBe(true);
  });
});
