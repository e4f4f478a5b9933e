import express from 'express';
import type { ConsoleContext } from '../../src/server/console/consoleContext';
import type { ConsoleRoutes } from '../../src/server/console/consoleRoutes';
import { consolePages } from '../../src/server/console/pages';

export interface ConsoleRouteTable {
  /** Pages and JSON answers for signed-in operators (GET). */
  gets: string[];
  /** Their form actions (POST), with whether each needs a step-up. */
  posts: { path: string; stepUp: boolean }[];
}

/**
 * Every route the console's page modules register, read by registering them against a recording
 * `ConsoleRoutes` (nothing runs): a new page is covered by the access tests without being listed.
 */
export function consoleRouteTable(): ConsoleRouteTable {
  const table: ConsoleRouteTable = { gets: [], posts: [] };
  const routes: ConsoleRoutes = {
    page: (path) => void table.gets.push(path),
    json: (path) => void table.gets.push(path),
    action: (path, options) => void table.posts.push({ path, stepUp: options.stepUp === true }),
    jsonAction: (path) => void table.posts.push({ path, stepUp: false }),
    record: () => undefined,
  };
  const ctx = { base: '/console', services: { config: { smtpUrl: undefined, console: { idleMs: 1_800_000 } } } } as unknown as ConsoleContext;
  consolePages(ctx, routes, express.Router());
  return table;
}

/** A route's path with its parameters filled: `:appId` the given app, any other parameter a value no row has. */
export function concretePath(path: string, appId: string): string {
  return path.replace(':appId', appId).replace(/:[A-Za-z]+/g, 'nothing-here');
}
