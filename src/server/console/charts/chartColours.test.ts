import { chartColour } from './chartColours';

describe('chartColour', () => {
  it('gives each of eight series its own colour, then starts again', () => {
    const eight = Array.from({ length: 8 }, (_, i) => chartColour(i));
    expect(new Set(eight).size).toBe(8);
    for (const colour of eight) expect(colour).toMatch(/^#[0-9a-f]{6}$/);
    expect(chartColour(8)).toBe(chartColour(0));
  });
});
