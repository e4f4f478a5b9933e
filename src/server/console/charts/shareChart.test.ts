import { allElements, allText, cspBreaches, parseSvg, type SvgElement } from '../../../../test/support/svgTree';
import { shareChart } from './shareChart';

const elements = (root: SvgElement, name: string) => allElements(root).filter((e) => e.name === name);
const byClass = (root: SvgElement, className: string) => allElements(root).filter((e) => e.attributes.class === className);
const legendTexts = (root: SvgElement) => byClass(root, 'chart-legend')[0].children.filter((c) => c.name === 'text').map((t) => t.text);
const dayOf = (n: number) => new Date(Date.UTC(2026, 0, 1 + n)).toISOString().slice(0, 10);
/** The plot's height at the default size with a one-row legend: from 54 to 236. */
const PLOT = { top: 54, bottom: 236 };

describe('shareChart', () => {
  const methods = [
    { day: '2026-11-23', parts: { passkey: 41, 'magic link': 6, 'generated token': 3 } },
    { day: '2026-11-24', parts: { passkey: 41, 'magic link': 6, 'generated token': 3 } },
  ];

  it('draws a full-height bar per day, each part’s slice its share, and the overall share of each part as text', () => {
    const root = parseSvg(shareChart({ title: 'Sign-ins by method', days: methods }));
    expect(root.attributes).toMatchObject({ role: 'img', 'aria-label': 'Sign-ins by method' });
    expect(legendTexts(root)).toEqual(['passkey 82 %', 'magic link 12 %', 'generated token 6 %']);
    expect(elements(root, 'desc')[0].text).toBe('From 2026-11-23 to 2026-11-24, by day. Overall: passkey 82 % (82), magic link 12 % (12), generated token 6 % (6).');
    const bars = byClass(root, 'chart-bar');
    expect(bars).toHaveLength(2);
    for (const bar of bars) {
      const slices = bar.children.map((r) => ({ y: Number(r.attributes.y), height: Number(r.attributes.height), fill: r.attributes.fill }));
      expect(slices.map((s) => s.fill)).toEqual(['#0072b2', '#e69f00', '#009e73']);
      // Stacked from the bottom, meeting, filling the plot.
      expect(slices[0].y + slices[0].height).toBeCloseTo(PLOT.bottom, 0);
      expect(slices[2].y).toBeCloseTo(PLOT.top, 0);
      expect(slices.reduce((sum, s) => sum + s.height, 0)).toBeCloseTo(PLOT.bottom - PLOT.top, 0);
      expect(slices[0].height / (PLOT.bottom - PLOT.top)).toBeCloseTo(0.82, 2);
    }
    expect(bars[0].children[0].children[0].text).toBe('2026-11-23, passkey: 41 of 50 (82 %)');
    const grid = byClass(root, 'chart-grid')[0].children.filter((c) => c.name === 'text').map((t) => t.text);
    expect(grid).toEqual(['0 %', '50 %', '100 %']);
  });

  it('leaves a gap for a day without data, and draws a day whose total is zero as an empty outline', () => {
    const root = parseSvg(
      shareChart({
        title: 't',
        days: [
          { day: '2026-11-01', parts: { passkey: 1 } },
          { day: '2026-11-02', parts: { passkey: 0 } },
          { day: '2026-11-04', parts: { passkey: 1 } },
        ],
      }),
    );
    expect(byClass(root, 'chart-bar')).toHaveLength(2);
    const [empty] = byClass(root, 'chart-bar-empty');
    expect(empty.children[0].text).toBe('2026-11-02: none');
    const xs = [...byClass(root, 'chart-bar').map((b) => Number(b.children[0].attributes.x)), Number(empty.attributes.x)].sort((a, b) => a - b);
    // Four slots for the four days: 1, 2, (3 missing), 4.
    expect((xs[2] - xs[1]) / (xs[1] - xs[0])).toBeCloseTo(2, 1);
  });

  it('draws a bar per week (from Monday) when the days span more than 60', () => {
    const days = Array.from({ length: 90 }, (_, n) => ({ day: dayOf(n), parts: { passkey: 3, 'magic link': 1 } }));
    const root = parseSvg(shareChart({ title: 'A quarter', days }));
    // 2026-01-01 is a Thursday: its week starts 2025-12-29; 2026-03-31 is in the week of 2026-03-30.
    const bars = byClass(root, 'chart-bar');
    expect(bars).toHaveLength(14);
    expect(bars[0].children[0].children[0].text).toBe('week of 2025-12-29, passkey: 12 of 16 (75 %)');
    expect(bars[1].children[0].children[0].text).toBe('week of 2026-01-05, passkey: 21 of 28 (75 %)');
    expect(bars[13].children[0].children[0].text).toBe('week of 2026-03-30, passkey: 6 of 8 (75 %)');
    expect(elements(root, 'desc')[0].text).toMatch(/^From 2026-01-01 to 2026-03-31, by week\./);
    expect(legendTexts(root)).toEqual(['passkey 75 %', 'magic link 25 %']);
  });

  it('keeps 60 days a bar each', () => {
    const days = Array.from({ length: 60 }, (_, n) => ({ day: dayOf(n), parts: { passkey: 1 } }));
    expect(byClass(parseSvg(shareChart({ title: 't', days })), 'chart-bar')).toHaveLength(60);
  });

  it('takes the parts in their order of first appearance, a part missing on a day as nothing that day', () => {
    const root = parseSvg(shareChart({ title: 't', days: [{ day: '2026-11-01', parts: { b: 1 } }, { day: '2026-11-02', parts: { a: 1, b: 1 } }] }));
    expect(legendTexts(root)).toEqual(['b 67 %', 'a 33 %']);
    expect(byClass(root, 'chart-bar')[0].children.map((r) => r.attributes.fill)).toEqual(['#0072b2']);
  });

  it('counts negative, non-finite and undated entries as nothing', () => {
    const root = parseSvg(
      shareChart({ title: 't', days: [{ day: '2026-11-01', parts: { a: -5, b: 5, c: Number.NaN } }, { day: 'soon', parts: { a: 1000 } }, { day: '2026-11-02', parts: { a: Number.POSITIVE_INFINITY, b: 1 } }] }),
    );
    expect(legendTexts(root)).toEqual(['a 0 %', 'b 100 %', 'c 0 %']);
  });

  it('says when there is nothing to show', () => {
    const none = parseSvg(shareChart({ title: 'Nothing yet', days: [] }));
    expect(byClass(none, 'chart-empty')[0].text).toBe('No data');
    expect(elements(none, 'desc')[0].text).toBe('No data.');
    expect(byClass(none, 'chart-legend')).toEqual([]);
    const zeros = parseSvg(shareChart({ title: 'Quiet', days: [{ day: '2026-11-01', parts: { passkey: 0, 'magic link': 0 } }] }));
    expect(legendTexts(zeros)).toEqual(['passkey', 'magic link']);
    expect(elements(zeros, 'desc')[0].text).toBe('On 2026-11-01: none.');
  });

  it('escapes every text it is given, and uses presentation attributes and class names only', () => {
    const evil = '"><script>alert(1)</script><rect style="x" onclick="y()"/>&';
    const svg = shareChart({ title: evil, days: [{ day: '2026-11-01', parts: { [evil]: 2, ok: 1 } }] });
    expect(svg).not.toMatch(/<script|style="|\son[a-z]+="|href="|url\(/i);
    const root = parseSvg(svg);
    expect(root.attributes['aria-label']).toBe(evil);
    expect(allText(byClass(root, 'chart-legend')[0])).toContain(`${evil} 67 %`);
    expect(cspBreaches(root)).toEqual([]);
  });

  it('gives the same markup for the same input, and large counts their exact shares', () => {
    const input = { title: 'Big', days: [{ day: '2026-11-01', parts: { passkey: 2_000_000_000, 'magic link': 1 } }] };
    expect(shareChart(input)).toBe(shareChart(structuredClone(input)));
    expect(legendTexts(parseSvg(shareChart(input)))).toEqual(['passkey 100 %', 'magic link 0 %']);
  });
});
