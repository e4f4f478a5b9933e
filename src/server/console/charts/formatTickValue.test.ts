import { formatTickValue } from './formatTickValue';

describe('formatTickValue', () => {
  it.each([
    [0, '0'],
    [-0, '0'],
    [7, '7'],
    [950, '950'],
    [1000, '1k'],
    [1250, '1.3k'],
    [2_500_000, '2.5M'],
    [1_000_000_000, '1B'],
    [4.2e12, '4.2T'],
    [-1500, '-1.5k'],
    [0.5, '0.5'],
    [0.125, '0.13'],
    [-0.001, '0'],
  ])('writes %p as %p', (value, text) => {
    expect(formatTickValue(value)).toBe(text);
  });
});
