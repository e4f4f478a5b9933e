import { escapeHtml } from '../../core/escapeHtml';
import { coordinate } from './coordinate';

/** Roughly how wide a label is at the charts' 11 px sans-serif (no font metrics on the server): generous, so that items do not overlap. */
const CHAR_WIDTH = 6.5;
const SWATCH = 10;
const ROW_HEIGHT = 16;
const GAP = 16;

/**
 * A legend: a colour swatch and a label per item, left to right from `left`, wrapped before
 * `right`, rows from `top` down. Answers the SVG and where its last row ends.
 */
export function chartLegend(items: { label: string; colour: string }[], area: { left: number; right: number; top: number }): { svg: string; bottom: number } {
  if (items.length === 0) return { svg: '', bottom: area.top };
  let x = area.left;
  let row = 0;
  const parts: string[] = [];
  for (const { label, colour } of items) {
    const width = SWATCH + 4 + label.length * CHAR_WIDTH;
    if (x > area.left && x + width > area.right) {
      row += 1;
      x = area.left;
    }
    const y = area.top + row * ROW_HEIGHT;
    parts.push(
      `<rect x="${coordinate(x)}" y="${coordinate(y)}" width="${SWATCH}" height="${SWATCH}" fill="${colour}"/>` +
        `<text x="${coordinate(x + SWATCH + 4)}" y="${coordinate(y + SWATCH - 1)}">${escapeHtml(label)}</text>`,
    );
    x += width + GAP;
  }
  return { svg: `<g class="chart-legend">${parts.join('')}</g>`, bottom: area.top + (row + 1) * ROW_HEIGHT };
}
