import { escapeHtml } from '../../core/escapeHtml';
import { utcDateOf, utcDayOfDate } from '../../core/utcDay';
import { chartColour } from './chartColours';
import { chartDimension } from './chartDimension';
import { chartLegend } from './chartLegend';
import { coordinate } from './coordinate';
import { dayTicks } from './dayTicks';
import { roundedShares } from './roundedShares';
import { svgDocument } from './svgDocument';

export interface ShareChartDay {
  /** The UTC day, yyyy-MM-dd. */
  day: string;
  /** Each part's count that day, by the part's name (shown as given). */
  parts: Record<string, number>;
}

export interface ShareChartInput {
  title: string;
  days: ShareChartDay[];
  /** Pixels; default 640, at least 240. */
  width?: number;
  /** Pixels; default 260, at least 160. */
  height?: number;
}

/** Periods longer than this many days are drawn a bar per week (from Monday) rather than per day. */
const WEEKLY_AFTER_DAYS = 60;
const LEFT = 44;
const RIGHT = 20;
const BOTTOM = 24;

/** A count as a tooltip gives it: in full, locale-free, fractions to two places. */
const count = (value: number) => String(Number(value.toFixed(2)));

/** The Monday of a day's ISO week (day 0, 1970-01-01, was a Thursday). */
const mondayOf = (day: number) => day - ((((day + 3) % 7) + 7) % 7);

/**
 * Shares of a whole over time as an SVG chart of 100 % stacked bars: a bar per UTC day, or per
 * week when the days span more than `WEEKLY_AFTER_DAYS`, each part's slice its share of that bar's
 * total, in the parts' order of first appearance. A bar whose total is zero is an empty outline; a
 * day absent from the input leaves a gap. The legend gives each part's share of everything shown
 * as text ("passkey 82 %", whole percentages that add up to 100). Days that are not dates and
 * counts that are not positive finite numbers count as nothing. Every text is escaped, and the
 * same input gives the same markup, byte for byte.
 */
export function shareChart(input: ShareChartInput): string {
  const width = chartDimension(input.width, 640, 240);
  const height = chartDimension(input.height, 260, 160);
  const names: string[] = [];
  const days: { day: number; parts: Map<string, number> }[] = [];
  for (const entry of input.days) {
    const day = utcDayOfDate(entry.day);
    if (day === undefined) continue;
    const parts = new Map<string, number>();
    for (const [name, value] of Object.entries(entry.parts)) {
      if (!names.includes(name)) names.push(name);
      parts.set(name, Number.isFinite(value) && value > 0 ? value : 0);
    }
    days.push({ day, parts });
  }

  let [first, last] = [0, 0];
  days.forEach((d, i) => {
    first = i === 0 ? d.day : Math.min(first, d.day);
    last = i === 0 ? d.day : Math.max(last, d.day);
  });
  const weekly = days.length > 0 && last - first + 1 > WEEKLY_AFTER_DAYS;
  const slotOf = (day: number) => (weekly ? mondayOf(day) : day);
  const slotDays = weekly ? 7 : 1;
  const [firstSlot, lastSlot] = [slotOf(first), slotOf(last)];
  const slots = days.length ? (lastSlot - firstSlot) / slotDays + 1 : 0;

  // The bars: each day's counts added to its slot's.
  const bars = new Map<number, number[]>();
  for (const { day, parts } of days) {
    const slot = slotOf(day);
    const sums = bars.get(slot) ?? names.map(() => 0);
    names.forEach((name, i) => {
      sums[i] += parts.get(name) ?? 0;
    });
    bars.set(slot, sums);
  }
  const overall = names.map((_, i) => [...bars.values()].reduce((sum, sums) => sum + (sums[i] ?? 0), 0));
  const overallShares = roundedShares(overall);
  const hasTotal = overall.some((v) => v > 0);

  const legend = chartLegend(
    names.map((name, i) => ({ label: hasTotal ? `${name} ${overallShares[i]} %` : name, colour: chartColour(i) })),
    { left: LEFT, right: width - RIGHT, top: 28 },
  );
  const plot = { left: LEFT, right: width - RIGHT, top: legend.bottom + 10, bottom: height - BOTTOM };
  plot.top = Math.min(plot.top, plot.bottom - 40);
  const plotHeight = plot.bottom - plot.top;
  const slotWidth = slots > 0 ? (plot.right - plot.left) / slots : 0;
  const barWidth = slotWidth >= 3 ? slotWidth * 0.8 : slotWidth;
  const slotX = (slot: number) => plot.left + ((slot - firstSlot) / slotDays) * slotWidth + (slotWidth - barWidth) / 2;
  const period = (slot: number) => (weekly ? `week of ${utcDateOf(slot)}` : utcDateOf(slot));

  const drawn = [...bars.entries()]
    .sort(([a], [b]) => a - b)
    .map(([slot, sums]) => {
      const x = coordinate(slotX(slot));
      const w = coordinate(barWidth);
      const total = sums.reduce((sum, v) => sum + v, 0);
      if (total <= 0) {
        return `<rect class="chart-bar-empty" x="${x}" y="${coordinate(plot.top)}" width="${w}" height="${coordinate(plotHeight)}" fill="none" stroke="#ccc"><title>${escapeHtml(`${period(slot)}: none`)}</title></rect>`;
      }
      const shares = roundedShares(sums);
      let below = 0;
      const slices = sums.map((value, i) => {
        if (value <= 0) return '';
        // From the running total, so that the slices meet exactly and the bar is full.
        const bottom = plot.bottom - (below / total) * plotHeight;
        below += value;
        const top = plot.bottom - (below / total) * plotHeight;
        const tooltip = `${period(slot)}, ${names[i]}: ${count(value)} of ${count(total)} (${shares[i]} %)`;
        return `<rect x="${x}" y="${coordinate(top)}" width="${w}" height="${coordinate(bottom - top)}" fill="${chartColour(i)}"><title>${escapeHtml(tooltip)}</title></rect>`;
      });
      return `<g class="chart-bar">${slices.join('')}</g>`;
    })
    .join('');

  const grid = [0, 50, 100]
    .map((percent) => {
      const at = coordinate(plot.bottom - (percent / 100) * plotHeight);
      return `<line x1="${plot.left}" y1="${at}" x2="${plot.right}" y2="${at}" stroke="#ddd"/><text x="${plot.left - 6}" y="${at}" dy="4" text-anchor="end">${percent} %</text>`;
    })
    .join('');
  const labelSlots = slots > 0 ? [...new Set(dayTicks(0, slots - 1).map((i) => firstSlot + i * slotDays))] : [];
  const xLabels = labelSlots
    .map((slot, i) => {
      const anchor = labelSlots.length === 1 ? 'middle' : i === 0 ? 'start' : i === labelSlots.length - 1 ? 'end' : 'middle';
      const centre = slotX(slot) + barWidth / 2;
      const at = coordinate(anchor === 'start' ? slotX(slot) : anchor === 'end' ? slotX(slot) + barWidth : centre);
      return `<text x="${at}" y="${plot.bottom + 16}" text-anchor="${anchor}">${utcDateOf(slot)}</text>`;
    })
    .join('');
  const axes = `<g class="chart-axis"><line x1="${plot.left}" y1="${plot.bottom}" x2="${plot.right}" y2="${plot.bottom}" stroke="#666"/>${xLabels}</g>`;
  const empty = days.length === 0 ? `<text class="chart-empty" x="${coordinate((plot.left + plot.right) / 2)}" y="${coordinate((plot.top + plot.bottom) / 2)}" text-anchor="middle">No data</text>` : '';

  return svgDocument({
    className: 'chart-share',
    width,
    height,
    title: input.title,
    description: describe(names, overall, overallShares, days.length ? { first, last, weekly } : undefined),
    body: `<g class="chart-grid">${grid}</g>${axes}${legend.svg}${drawn}${empty}`,
  });
}

/** What the chart shows, in words, for screen readers: the period, how it is divided, and each part's overall share. */
function describe(names: string[], overall: number[], shares: number[], span: { first: number; last: number; weekly: boolean } | undefined): string {
  if (!span) return 'No data.';
  const period = span.first === span.last ? `On ${utcDateOf(span.first)}` : `From ${utcDateOf(span.first)} to ${utcDateOf(span.last)}, by ${span.weekly ? 'week' : 'day'}`;
  if (!overall.some((v) => v > 0)) return `${period}: none.`;
  return `${period}. Overall: ${names.map((name, i) => `${name} ${shares[i]} % (${count(overall[i])})`).join(', ')}.`;
}
