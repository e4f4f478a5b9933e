import { escapeHtml } from '../../core/escapeHtml';
import { utcDateOf, utcDayOfDate } from '../../core/utcDay';
import { chartColour } from './chartColours';
import { chartDimension } from './chartDimension';
import { chartLegend } from './chartLegend';
import { coordinate } from './coordinate';
import { dayTicks } from './dayTicks';
import { formatTickValue } from './formatTickValue';
import { niceTicks } from './niceTicks';
import { svgDocument } from './svgDocument';

export interface LineChartPoint {
  /** The UTC day, yyyy-MM-dd. */
  day: string;
  value: number;
}

export interface LineChartSeries {
  name: string;
  points: LineChartPoint[];
}

export interface LineChartInput {
  title: string;
  series: LineChartSeries[];
  /** Pixels; default 640, at least 240. */
  width?: number;
  /** Pixels; default 260, at least 160. */
  height?: number;
}

/** Series with this many points or fewer also get a dot (with its value as a tooltip) per point. */
const MAX_DOTS = 62;
const LEFT = 56;
const RIGHT = 20;
const BOTTOM = 24;

/**
 * Values over time as an SVG line chart: a time axis of UTC days and a value axis from zero with a
 * few labelled ticks, one line per series in its own colour, a legend. A point whose day is not a
 * date or whose value is not a finite number is left out; a series of one point is a dot; no
 * points at all draw the empty axes and say so. Every text is escaped, and the same input gives
 * the same markup, byte for byte.
 */
export function lineChart(input: LineChartInput): string {
  const width = chartDimension(input.width, 640, 240);
  const height = chartDimension(input.height, 260, 160);
  const series = input.series.map((s, index) => ({
    name: s.name,
    colour: chartColour(index),
    points: s.points
      .map((p) => ({ day: utcDayOfDate(p.day), value: p.value }))
      .filter((p): p is { day: number; value: number } => p.day !== undefined && Number.isFinite(p.value))
      .sort((a, b) => a.day - b.day),
  }));
  const all = series.flatMap((s) => s.points);

  const legend = chartLegend(
    series.map((s) => ({ label: s.name, colour: s.colour })),
    { left: LEFT, right: width - RIGHT, top: 28 },
  );
  const plot = { left: LEFT, right: width - RIGHT, top: legend.bottom + 10, bottom: height - BOTTOM };
  // A legend too tall for the chart leaves the plot a sliver rather than turning it upside down.
  plot.top = Math.min(plot.top, plot.bottom - 40);

  // Loops rather than Math.min(...values): a long series would pass the engine's argument limit.
  let [low, high, first, last] = [0, 0, 0, 0];
  all.forEach((p, i) => {
    low = i === 0 ? p.value : Math.min(low, p.value);
    high = i === 0 ? p.value : Math.max(high, p.value);
    first = i === 0 ? p.day : Math.min(first, p.day);
    last = i === 0 ? p.day : Math.max(last, p.day);
  });
  const yTicks = niceTicks(low, high, { integers: all.every((p) => Number.isInteger(p.value)) });
  const [yLow, yHigh] = [yTicks[0], yTicks[yTicks.length - 1]];
  const y = (value: number) => plot.bottom - ((value - yLow) / (yHigh - yLow)) * (plot.bottom - plot.top);

  const x = (day: number) => (last === first ? (plot.left + plot.right) / 2 : plot.left + ((day - first) / (last - first)) * (plot.right - plot.left));

  const grid = yTicks
    .map((tick) => {
      const at = coordinate(y(tick));
      return `<line x1="${plot.left}" y1="${at}" x2="${plot.right}" y2="${at}" stroke="#ddd"/><text x="${plot.left - 6}" y="${at}" dy="4" text-anchor="end">${escapeHtml(formatTickValue(tick))}</text>`;
    })
    .join('');
  const xTicks = all.length ? dayTicks(first, last) : [];
  const xLabels = xTicks
    .map((day, i) => {
      const anchor = xTicks.length === 1 ? 'middle' : i === 0 ? 'start' : i === xTicks.length - 1 ? 'end' : 'middle';
      const at = coordinate(x(day));
      return `<line x1="${at}" y1="${plot.bottom}" x2="${at}" y2="${plot.bottom + 4}" stroke="#666"/><text x="${at}" y="${plot.bottom + 16}" text-anchor="${anchor}">${utcDateOf(day)}</text>`;
    })
    .join('');
  const axes = `<g class="chart-axis"><line x1="${plot.left}" y1="${coordinate(plot.top)}" x2="${plot.left}" y2="${plot.bottom}" stroke="#666"/><line x1="${plot.left}" y1="${plot.bottom}" x2="${plot.right}" y2="${plot.bottom}" stroke="#666"/>${xLabels}</g>`;

  const lines = series
    .map((s, index) => {
      if (s.points.length === 0) return '';
      const path = s.points.map((p) => `${coordinate(x(p.day))},${coordinate(y(p.value))}`).join(' ');
      const line = s.points.length > 1 ? `<polyline points="${path}" fill="none" stroke="${s.colour}" stroke-width="2" stroke-linejoin="round"/>` : '';
      const dots =
        s.points.length <= MAX_DOTS
          ? s.points
              .map((p) => `<circle cx="${coordinate(x(p.day))}" cy="${coordinate(y(p.value))}" r="3" fill="${s.colour}"><title>${escapeHtml(`${s.name}, ${utcDateOf(p.day)}: ${formatValue(p.value)}`)}</title></circle>`)
              .join('')
          : '';
      return `<g class="chart-series chart-series-${index}">${line}${dots}</g>`;
    })
    .join('');
  const empty = all.length === 0 ? `<text class="chart-empty" x="${coordinate((plot.left + plot.right) / 2)}" y="${coordinate((plot.top + plot.bottom) / 2)}" text-anchor="middle">No data</text>` : '';

  return svgDocument({
    className: 'chart-line',
    width,
    height,
    title: input.title,
    description: describe(series, first, last),
    body: `<g class="chart-grid">${grid}</g>${axes}${legend.svg}${lines}${empty}`,
  });
}

/** A value as a tooltip or description gives it: in full, locale-free. */
const formatValue = (value: number) => (Number.isInteger(value) ? String(value) : String(Number(value.toFixed(2))));

/** What the chart shows, in words, for screen readers: the days it spans and each series' latest value. */
function describe(series: { name: string; points: { day: number; value: number }[] }[], first: number, last: number): string {
  if (series.every((s) => s.points.length === 0)) return 'No data.';
  const span = first === last ? `On ${utcDateOf(first)}` : `From ${utcDateOf(first)} to ${utcDateOf(last)}`;
  const latest = series
    .filter((s) => s.points.length > 0)
    .map((s) => {
      const point = s.points[s.points.length - 1];
      return `${s.name} ${formatValue(point.value)} on ${utcDateOf(point.day)}`;
    });
  return `${span}. Latest: ${latest.join('; ')}.`;
}
