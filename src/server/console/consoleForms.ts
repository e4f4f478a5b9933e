import type { Request } from 'express';
import { csrfTokenOf } from './consoleCsrf';
import { html, type Html } from './html';

export interface FormOptions {
  /** A destructive action: the page's script asks for a passkey step-up before sending it (the server checks it either way). */
  stepUp?: boolean;
  /** Asked in a confirm() before sending. */
  confirm?: string;
  /** Extra class names for layout. */
  className?: string;
}

/**
 * A form that posts to one of the console's actions, with the session's CSRF token and the page
 * to come back to (`_back`: this page, which the action checks is a console path before using it).
 */
export function form(req: Request, action: string, fields: Html, options: FormOptions = {}): Html {
  return html`<form method="post" action="${action}" class="${options.className ?? ''}"${options.stepUp ? html` data-step-up="step-up"` : ''}${options.confirm ? html` data-confirm="${options.confirm}"` : ''}>
<input type="hidden" name="_csrf" value="${csrfTokenOf(req)}"><input type="hidden" name="_back" value="${req.originalUrl}">${fields}</form>`;
}

/** A link to the next page of a list paged by key: the cursor the service answered, nothing else carried over but `keep`. */
export function nextPageLink(path: string, next: string | null, keep: Record<string, string | undefined> = {}): Html {
  if (next === null) return html`<p class="pager">End of the list.</p>`;
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(keep)) if (value) query.set(key, value);
  query.set('after', next);
  return html`<p class="pager"><a href="${path}?${query.toString()}" rel="next">Next page</a></p>`;
}

/** The ISO time shown in tables (UTC, to the minute), or a dash. */
export function when(value: string | number | Date | null | undefined): string {
  if (value === null || value === undefined) return '—';
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? '—' : `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}
