import { allElements, cspBreaches, parseSvg, type SvgElement } from '../../../../test/support/svgTree';
import { lineChart } from './lineChart';

const days = (from: number, values: number[]) => values.map((value, i) => ({ day: `2026-11-${String(from + i).padStart(2, '0')}`, value }));
const elements = (root: SvgElement, name: string) => allElements(root).filter((e) => e.name === name);
const pointsOf = (polyline: SvgElement) => polyline.attributes.points.split(' ').map((pair) => pair.split(',').map(Number));
/** The value-axis labels, bottom to top. */
const yLabels = (root: SvgElement) =>
  allElements(root)
    .find((e) => e.attributes.class === 'chart-grid')!
    .children.filter((e) => e.name === 'text')
    .map((t) => t.text);

describe('lineChart', () => {
  const users = { name: 'users', points: days(1, [3, 5, 4, 8]) };
  const passkeys = { name: 'passkeys', points: days(1, [4, 7, 7, 12]) };

  it('draws one line per series in its own colour, a legend, labelled axes, and a title for assistive technology', () => {
    const root = parseSvg(lineChart({ title: 'Users and passkeys', series: [users, passkeys] }));
    expect(root.attributes).toMatchObject({ role: 'img', 'aria-label': 'Users and passkeys', width: '640', height: '260' });
    expect(elements(root, 'title')[0].text).toBe('Users and passkeys');
    expect(elements(root, 'desc')[0].text).toBe('From 2026-11-01 to 2026-11-04. Latest: users 8 on 2026-11-04; passkeys 12 on 2026-11-04.');
    const lines = elements(root, 'polyline');
    expect(lines.map((l) => l.attributes.stroke)).toEqual(['#0072b2', '#e69f00']);
    expect(lines.map((l) => pointsOf(l).length)).toEqual([4, 4]);
    // Left to right by day, higher values higher up (a smaller y).
    const [first, second] = pointsOf(lines[1]);
    expect(second[0]).toBeGreaterThan(first[0]);
    expect(second[1]).toBeLessThan(first[1]);
    const legend = allElements(root).find((e) => e.attributes.class === 'chart-legend')!;
    expect(legend.children.filter((c) => c.name === 'text').map((t) => t.text)).toEqual(['users', 'passkeys']);
    expect(yLabels(root)).toEqual(['0', '5', '10', '15']);
    const axis = allElements(root).find((e) => e.attributes.class === 'chart-axis')!;
    expect(axis.children.filter((c) => c.name === 'text').map((t) => t.text)).toEqual(['2026-11-01', '2026-11-02', '2026-11-03', '2026-11-04']);
    // A dot per point, its value as a tooltip.
    expect(elements(root, 'circle').map((c) => c.children[0].text)).toContain('passkeys, 2026-11-04: 12');
  });

  it('places points by their day, so a missing day is a gap in time, not a step', () => {
    const root = parseSvg(lineChart({ title: 't', series: [{ name: 's', points: [{ day: '2026-11-01', value: 1 }, { day: '2026-11-02', value: 1 }, { day: '2026-11-11', value: 1 }] }] }));
    const [a, b, c] = pointsOf(elements(root, 'polyline')[0]).map(([x]) => x);
    expect((c - b) / (b - a)).toBeCloseTo(9, 1);
  });

  it('sorts a series’ points by day and leaves out points that are no date or no finite number', () => {
    const root = parseSvg(
      lineChart({
        title: 't',
        series: [{ name: 's', points: [{ day: '2026-11-03', value: 3 }, { day: '2026-11-01', value: 1 }, { day: 'yesterday', value: 5 }, { day: '2026-02-30', value: 5 }, { day: '2026-11-02', value: Number.NaN }] }],
      }),
    );
    const xs = pointsOf(elements(root, 'polyline')[0]).map(([x]) => x);
    expect(xs).toHaveLength(2);
    expect(xs[1]).toBeGreaterThan(xs[0]);
  });

  it('escapes every text it is given', () => {
    const evil = '</text><script>alert(1)</script><text onload="x()">&amp;';
    const svg = lineChart({ title: evil, series: [{ name: evil, points: days(1, [1, 2]) }] });
    expect(svg).not.toContain('<script');
    expect(svg).not.toContain('onload="');
    const root = parseSvg(svg);
    expect(root.attributes['aria-label']).toBe(evil);
    expect(elements(root, 'title')[0].text).toBe(evil);
    expect(cspBreaches(root)).toEqual([]);
  });

  it('uses presentation attributes and class names only, and references nothing outside itself', () => {
    const svg = lineChart({ title: 'Users', series: [users, passkeys] });
    expect(cspBreaches(parseSvg(svg))).toEqual([]);
    expect(svg).not.toMatch(/style=|<style|<script|\son[a-z]+=|href=|url\(/i);
  });

  it('draws empty axes that say so when there are no points at all', () => {
    for (const series of [[], [{ name: 'users', points: [] }]]) {
      const root = parseSvg(lineChart({ title: 'Nothing yet', series }));
      expect(elements(root, 'polyline')).toEqual([]);
      expect(allElements(root).find((e) => e.attributes.class === 'chart-empty')?.text).toBe('No data');
      expect(elements(root, 'desc')[0].text).toBe('No data.');
      expect(yLabels(root)).toEqual(['0', '1']);
    }
  });

  it('draws a single point as a dot in the middle, labelled with its day', () => {
    const root = parseSvg(lineChart({ title: 'One day', series: [{ name: 'users', points: [{ day: '2026-11-24', value: 5 }] }] }));
    expect(elements(root, 'polyline')).toEqual([]);
    const [dot] = elements(root, 'circle');
    expect(Number(dot.attributes.cx)).toBeCloseTo((56 + 620) / 2, 0);
    expect(elements(root, 'desc')[0].text).toBe('On 2026-11-24. Latest: users 5 on 2026-11-24.');
    const axis = allElements(root).find((e) => e.attributes.class === 'chart-axis')!;
    expect(axis.children.filter((c) => c.name === 'text').map((t) => [t.text, t.attributes['text-anchor']])).toEqual([['2026-11-24', 'middle']]);
  });

  it('draws all-zero values on the baseline of a 0 to 1 axis', () => {
    const root = parseSvg(lineChart({ title: 'Quiet', series: [{ name: 'sign-ins', points: days(1, [0, 0, 0]) }] }));
    expect(yLabels(root)).toEqual(['0', '1']);
    const ys = new Set(pointsOf(elements(root, 'polyline')[0]).map(([, y]) => y));
    expect([...ys]).toEqual([260 - 24]);
  });

  it('labels large values briefly and keeps every point inside the plot', () => {
    const root = parseSvg(lineChart({ title: 'Big', series: [{ name: 'events', points: days(1, [0, 1_250_000, 987_654_321, 2_000_000_000]) }] }));
    expect(yLabels(root)).toEqual(['0', '500M', '1B', '1.5B', '2B']);
    for (const [x, y] of pointsOf(elements(root, 'polyline')[0])) {
      expect(x).toBeGreaterThanOrEqual(56);
      expect(x).toBeLessThanOrEqual(620);
      expect(y).toBeGreaterThanOrEqual(0);
      expect(y).toBeLessThanOrEqual(236);
    }
  });

  it('gives the same markup for the same input, and takes a size', () => {
    const input = { title: 'Users', series: [users, passkeys], width: 400, height: 200 };
    expect(lineChart(input)).toBe(lineChart(structuredClone(input)));
    expect(parseSvg(lineChart(input)).attributes).toMatchObject({ width: '400', height: '200', viewBox: '0 0 400 200' });
  });

  it('draws a long series as a line without a dot per point', () => {
    const long = Array.from({ length: 400 }, (_, i) => ({ day: new Date(Date.UTC(2025, 0, 1 + i)).toISOString().slice(0, 10), value: i % 17 }));
    const root = parseSvg(lineChart({ title: 'A year', series: [{ name: 'users', points: long }] }));
    expect(pointsOf(elements(root, 'polyline')[0])).toHaveLength(400);
    expect(elements(root, 'circle')).toEqual([]);
  });
});
