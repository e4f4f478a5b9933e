import { coordinate } from './coordinate';

describe('coordinate', () => {
  it('writes a coordinate to a tenth of a pixel, without a negative zero', () => {
    expect(coordinate(12)).toBe('12');
    expect(coordinate(12.345)).toBe('12.3');
    expect(coordinate(-0.01)).toBe('0');
    expect(coordinate(1 / 3 + 2 / 3)).toBe('1');
  });
});
