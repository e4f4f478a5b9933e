import { escapeHtml } from '../core/escapeHtml';

/** Markup that is already safe: what `html` makes, never text from a request. */
export class Html {
  constructor(readonly markup: string) {}
  toString(): string {
    return this.markup;
  }
}

type Value = Html | string | number | boolean | null | undefined | readonly Value[];

function render(value: Value): string {
  if (value === null || value === undefined || value === false || value === true) return '';
  if (value instanceof Html) return value.markup;
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

/**
 * The console's one way to write markup: every interpolated value is escaped unless it is itself
 * `Html`, so a page cannot forget to escape an alias, a URL or a message (escaping by default).
 * `null`, `undefined` and booleans render nothing, so `cond && html`...`` reads naturally.
 */
export function html(strings: TemplateStringsArray, ...values: Value[]): Html {
  let out = strings[0];
  for (let i = 0; i < values.length; i++) out += render(values[i]) + strings[i + 1];
  return new Html(out);
}
