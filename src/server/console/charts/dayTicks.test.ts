import { dayTicks } from './dayTicks';

describe('dayTicks', () => {
  it('spreads up to five days evenly over the span, both ends included', () => {
    expect(dayTicks(100, 100)).toEqual([100]);
    expect(dayTicks(100, 101)).toEqual([100, 101]);
    expect(dayTicks(100, 103)).toEqual([100, 101, 102, 103]);
    expect(dayTicks(100, 130)).toEqual([100, 108, 115, 123, 130]);
    expect(dayTicks(0, 1000, 3)).toEqual([0, 500, 1000]);
  });
});
