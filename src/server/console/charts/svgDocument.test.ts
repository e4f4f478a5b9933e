import { cspBreaches, parseSvg } from '../../../../test/support/svgTree';
import { svgDocument } from './svgDocument';

describe('svgDocument', () => {
  it('names the chart for assistive technology, escaped, and describes it', () => {
    const root = parseSvg(svgDocument({ className: 'chart-x', width: 300, height: 200, title: 'Users <of> "shop" & co', description: 'From a to b.', body: '<g/>' }));
    expect(root.attributes).toMatchObject({ role: 'img', 'aria-label': 'Users <of> "shop" & co', class: 'chart chart-x', width: '300', height: '200', viewBox: '0 0 300 200' });
    expect(root.children.map((c) => c.name)).toEqual(['title', 'desc', 'text', 'g']);
    expect(root.children[0].text).toBe('Users <of> "shop" & co');
    expect(root.children[1].text).toBe('From a to b.');
    expect(cspBreaches(root)).toEqual([]);
  });
});
