import { lineChart } from '../charts/lineChart';
import { shareChart } from '../charts/shareChart';
import type { ConsoleContext } from '../consoleContext';
import type { ConsoleRoutes } from '../consoleRoutes';
import { html, Html } from '../html';
import { layout } from '../layout';
import { appOf } from './appOf';
import { periodDays, reportPeriod } from './reportingPeriod';

/**
 * An app's reports over a period: users and passkeys (the daily snapshots), daily and weekly active
 * users, and the share of sign-ins by passkey, magic link and generated token (the per-day counts),
 * as SVG charts rendered here. Reads one row per day of the period, at most a year.
 */
export function reportingPages(ctx: ConsoleContext, routes: ConsoleRoutes): void {
  const { base, services } = ctx;

  routes.page(`${base}/apps/:appId/reporting`, async (req, res, operator) => {
    const { appId } = await appOf(ctx, req);
    const period = reportPeriod(req.query, ctx.now());
    const [totals, active, signIns] = await Promise.all([
      services.reports.credentials(appId, period),
      services.reports.activeUsersReport(appId, period),
      services.reports.signInMethods(appId, period),
    ]);
    // The charts escape every text they draw: their markup is safe to embed as it is.
    const chart = (svg: string) => new Html(svg);
    const body = html`<form method="get" class="filters" action="${base}/apps/${appId}/reporting">
<label>From <input type="date" name="from" value="${period.from}"></label>
<label>To <input type="date" name="to" value="${period.to}"></label>
<button type="submit">Show</button></form>
<p class="hint">${periodDays(period)} days, UTC. Users, passkeys and active users are daily snapshots, taken after each day ends; sign-ins are counted as they are verified.</p>
<section class="card" data-chart="totals"><h2>Users and passkeys</h2>
${chart(lineChart({ title: 'Users and passkeys', series: [{ name: 'users', points: totals.map((d) => ({ day: d.createdAt, value: d.users })) }, { name: 'passkeys', points: totals.map((d) => ({ day: d.createdAt, value: d.credentials })) }] }))}</section>
<section class="card" data-chart="active"><h2>Active users</h2>
${chart(lineChart({ title: 'Daily and weekly active users', series: [{ name: 'daily active', points: active.map((d) => ({ day: d.createdAt, value: d.dailyActiveUsers })) }, { name: 'weekly active', points: active.map((d) => ({ day: d.createdAt, value: d.weeklyActiveUsers })) }] }))}</section>
<section class="card" data-chart="sign-ins"><h2>Sign-ins by method</h2>
${chart(shareChart({ title: 'Share of sign-ins by method', days: signIns.map((d) => ({ day: d.day, parts: { passkey: d.passkey, 'magic link': d.magicLink, 'generated token': d.generatedToken } })) }))}</section>`;
    res.type('html').send(layout(ctx, req, { title: 'Reporting', body, operator, appId }));
  });
}
