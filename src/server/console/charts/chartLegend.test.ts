import { parseSvg } from '../../../../test/support/svgTree';
import { chartLegend } from './chartLegend';

describe('chartLegend', () => {
  it('puts a swatch and an escaped label per item, wrapping rows before the right edge', () => {
    const items = ['passkey', 'magic link', '<generated> & "token"'].map((label, i) => ({ label, colour: ['#111111', '#222222', '#333333'][i] }));
    const wide = chartLegend(items, { left: 10, right: 600, top: 30 });
    expect(wide.bottom).toBe(46);
    const narrow = chartLegend(items, { left: 10, right: 120, top: 30 });
    expect(narrow.bottom).toBe(78);
    const group = parseSvg(narrow.svg);
    expect(group.children.filter((c) => c.name === 'text').map((t) => t.text)).toEqual(['passkey', 'magic link', '<generated> & "token"']);
    expect(group.children.filter((c) => c.name === 'rect').map((r) => [r.attributes.fill, r.attributes.y])).toEqual([
      ['#111111', '30'],
      ['#222222', '46'],
      ['#333333', '62'],
    ]);
  });

  it('takes no room for no items', () => {
    expect(chartLegend([], { left: 0, right: 100, top: 20 })).toEqual({ svg: '', bottom: 20 });
  });
});
