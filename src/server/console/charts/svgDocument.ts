import { escapeHtml } from '../../core/escapeHtml';

/**
 * The SVG element around a chart's drawing: sized by `width` and `height` (and a viewBox, so it
 * scales), an image to assistive technology named by its title (`aria-label` and `<title>`) and
 * described by `description`. Styling is by presentation attributes and class names only: the
 * console's CSP allows no inline style, and the markup references nothing outside itself.
 */
export function svgDocument(chart: { className: string; width: number; height: number; title: string; description: string; body: string }): string {
  const title = escapeHtml(chart.title);
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" class="chart ${chart.className}" width="${chart.width}" height="${chart.height}" viewBox="0 0 ${chart.width} ${chart.height}"` +
    ` role="img" aria-label="${title}" font-family="sans-serif" font-size="11" fill="#333">` +
    `<title>${title}</title><desc>${escapeHtml(chart.description)}</desc>` +
    `<text class="chart-title" x="8" y="18" font-size="13" font-weight="bold">${title}</text>` +
    chart.body +
    '</svg>'
  );
}
