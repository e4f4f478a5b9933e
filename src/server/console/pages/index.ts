import type { Router } from 'express';
import type { ConsoleContext } from '../consoleContext';
import type { ConsoleRoutes } from '../consoleRoutes';
import { accountPages } from './accountPages';
import { appsPages } from './appsPages';
import { eventsPages } from './eventsPages';
import { operatorsPages } from './operatorsPages';
import { usersPages } from './usersPages';
import { playgroundPages } from './playgroundPages';

/** Every page of a signed-in operator; each module adds its own routes. */
export function consolePages(ctx: ConsoleContext, routes: ConsoleRoutes, _router: Router): void {
  appsPages(ctx, routes);
  operatorsPages(ctx, routes);
  accountPages(ctx, routes);
  usersPages(ctx, routes);
  eventsPages(ctx, routes);
  playgroundPages(ctx, routes);
}
