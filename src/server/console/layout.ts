import type { Request } from 'express';
import { csrfTokenOf } from './consoleCsrf';
import type { ConsoleContext } from './consoleContext';
import { takeNotice } from './consoleNotice';
import { html, type Html } from './html';
import type { Operator } from './operatorStore';

export interface PageInput {
  title: string;
  body: Html;
  /** Signed in: the navigation and the sign-out button are shown. */
  operator?: Operator;
  /** The app the page is about: its sub-navigation is shown. */
  appId?: string;
  /** Which script behaviours the page uses (console.js reads `data-page`). */
  page?: string;
  /** More scripts of `assets/` the page loads (ES modules), by file name. */
  scripts?: string[];
}

const NAV = [
  ['apps', 'Apps'],
  ['operators', 'Operators'],
  ['health', 'Health'],
  ['account', 'Your account'],
] as const;

const APP_NAV = [
  ['', 'Settings'],
  ['/users', 'Users'],
  ['/events', 'Event log'],
  ['/reporting', 'Reporting'],
  ['/webhooks', 'Webhooks'],
  ['/authenticators', 'Authenticators'],
  ['/playground', 'Playground'],
] as const;

/** A whole console page: escaped by construction, styled and scripted from this origin only. */
export function layout(ctx: ConsoleContext, req: Request, input: PageInput): string {
  const notice = takeNotice(req);
  const base = ctx.base;
  const appBase = input.appId === undefined ? undefined : `${base}/apps/${encodeURIComponent(input.appId)}`;
  return `<!doctype html>${html`<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${input.title} · Passwordless console</title>
<link rel="stylesheet" href="${base}/assets/console.css">
<script type="module" src="${base}/assets/console.js"></script>
${(input.scripts ?? []).map((name) => html`<script type="module" src="${base}/assets/${name}"></script>`)}
</head>
<body data-page="${input.page ?? ''}" data-base="${base}">
<header class="top">
  <a class="brand" href="${base}/apps">Passwordless console</a>
  ${input.operator && html`<nav>${NAV.map(([path, label]) => html`<a href="${base}/${path}">${label}</a>`)}</nav>
  <form method="post" action="${base}/sign-out" class="signout"><input type="hidden" name="_csrf" value="${csrfTokenOf(req)}"><span class="who">${input.operator.email}</span> <button type="submit">Sign out</button></form>`}
</header>
${appBase && html`<nav class="appnav"><strong>${input.appId}</strong>${APP_NAV.map(([path, label]) => html`<a href="${appBase}${path}">${label}</a>`)}</nav>`}
<main>
<h1>${input.title}</h1>
${notice && html`<p class="notice ${notice.kind}" role="status">${notice.text}</p>`}
${input.body}
</main>
</body>
</html>`.markup}`;
}
