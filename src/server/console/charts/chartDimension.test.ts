import { chartDimension } from './chartDimension';

describe('chartDimension', () => {
  it('takes a sane size, clamps an odd one, and falls back for what is no number', () => {
    expect(chartDimension(500, 640, 240)).toBe(500);
    expect(chartDimension(500.6, 640, 240)).toBe(501);
    expect(chartDimension(10, 640, 240)).toBe(240);
    expect(chartDimension(1e9, 640, 240)).toBe(4000);
    expect(chartDimension(undefined, 640, 240)).toBe(640);
    expect(chartDimension(Number.NaN, 640, 240)).toBe(640);
  });
});
