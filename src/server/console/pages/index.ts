import type { Router } from 'express';
import type { ConsoleContext } from '../consoleContext';
import type { ConsoleRoutes } from '../consoleRoutes';
import { accountPages } from './accountPages';
import { appSettingsPages } from './appSettingsPages';
import { appsPages } from './appsPages';
import { eventsPages } from './eventsPages';
import { authenticatorsPages } from './authenticatorsPages';
import { healthPage } from './healthPage';
import { operatorsPages } from './operatorsPages';
import { usersPages } from './usersPages';
import { playgroundPages } from './playgroundPages';
import { reportingPages } from './reportingPages';
import { webhooksPages } from './webhooksPages';

/** Every page of a signed-in operator; each module adds its own routes. */
export function consolePages(ctx: ConsoleContext, routes: ConsoleRoutes, _router: Router): void {
  appsPages(ctx, routes);
  appSettingsPages(ctx, routes);
  operatorsPages(ctx, routes);
  accountPages(ctx, routes);
  usersPages(ctx, routes);
  eventsPages(ctx, routes);
  webhooksPages(ctx, routes);
  authenticatorsPages(ctx, routes);
  healthPage(ctx, routes);
  playgroundPages(ctx, routes);
  reportingPages(ctx, routes);
}
