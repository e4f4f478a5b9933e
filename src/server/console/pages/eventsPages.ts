import { EVENT_TYPES, type EventType } from '../../services/events/eventTypes';
import { CONSOLE_APP_ID } from '../consoleAppId';
import type { ConsoleContext } from '../consoleContext';
import { nextPageLink } from '../consoleForms';
import type { ConsoleRoutes } from '../consoleRoutes';
import { html } from '../html';
import { layout } from '../layout';
import { appOf } from './appOf';
import { eventLogFilterOf } from './eventLogFilter';

const PAGE_SIZE = 50;
const TYPES = (Object.keys(EVENT_TYPES) as EventType[]).sort();

/**
 * An app's event log, newest first, paged by key, filtered by type and by a window of UTC days.
 * The console's own app is allowed here: its log is the operators' audit trail.
 */
export function eventsPages(ctx: ConsoleContext, routes: ConsoleRoutes): void {
  const { base, services } = ctx;

  routes.page(`${base}/apps/:appId/events`, async (req, res, operator) => {
    const { appId, features } = await appOf(ctx, req, { allowConsoleApp: true });
    const own = appId === CONSOLE_APP_ID;
    const path = `${base}/apps/${encodeURIComponent(appId)}/events`;
    const title = own ? 'Operators’ audit trail' : 'Event log';
    // The console's app has no other pages: no app navigation for it.
    const shell = { title, operator, appId: own ? undefined : appId };
    if (!features.eventLoggingIsEnabled) {
      const body = html`<p class="notice error" data-logging-off>Event logging is off for ${appId}: nothing it does is recorded, and there is no log to show.</p>
<p>Turn it on in <a href="${base}/apps/${encodeURIComponent(appId)}">the app’s settings</a> (Features); events are recorded from then on.</p>`;
      res.type('html').send(layout(ctx, req, { ...shell, body }));
      return;
    }
    const filter = eventLogFilterOf(req.query);
    const page = await services.events.filteredPage(appId, { types: filter.type && [filter.type], from: filter.from, to: filter.to, after: filter.after, limit: PAGE_SIZE });
    const rows = page.events.map(
      (e) => html`<tr data-event="${e.eventType}"><td class="when">${e.performedAt.slice(0, 19).replace('T', ' ')}</td><td>${e.eventType}</td><td>${e.severity}</td><td data-performed-by>${e.performedBy}</td><td>${e.subject}</td><td class="message">${e.message}</td><td>${e.apiKeyId}</td></tr>`,
    );
    const body = html`<form method="get" action="${path}" class="filters">
<label>Type <select name="type"><option value="">Every type</option>${TYPES.map((type) => html`<option value="${type}"${type === filter.type && html` selected`}>${type}</option>`)}</select></label>
<label>From <input type="date" name="from" value="${filter.keep.from ?? ''}"></label>
<label>To <input type="date" name="to" value="${filter.keep.to ?? ''}"></label>
<button type="submit">Filter</button>${(filter.keep.type || filter.keep.from || filter.keep.to) && html` <a href="${path}">Clear</a>`}</form>
<p class="hint">Newest first, in UTC; the days of the filter are UTC days, both included. Events are kept ${features.eventLoggingRetentionPeriod} days. A page of one type reads a bounded stretch of the log, so it may hold fewer than ${PAGE_SIZE} events and still have a next page.${own ? ' Every console action is here, with the operator who did it.' : ''}</p>
<table data-events><thead><tr><th>When</th><th>Type</th><th>Severity</th><th>By</th><th>Subject</th><th>Message</th><th>Key</th></tr></thead><tbody>${rows}</tbody></table>
${page.events.length === 0 && html`<p>${page.next === null ? `No events${filter.keep.type || filter.keep.from || filter.keep.to ? ' match the filter' : ''} here.` : 'None of the events read for this page is of this type: the next page looks further back.'}</p>`}
${nextPageLink(path, page.next, filter.keep)}`;
    res.type('html').send(layout(ctx, req, { ...shell, body }));
  });
}
