import type { Request } from 'express';
import { APP_ID_PATTERN } from '../../../shared/apiKeys';
import { ApiError } from '../../core/apiError';
import type { AppFeatures } from '../../services/apps/apps';
import { CONSOLE_APP_ID } from '../consoleAppId';
import type { ConsoleContext } from '../consoleContext';

/**
 * The app a page under `/console/apps/:appId` is about, and its features: a 404 page for an id no
 * app has. The console's own app (the operators') is not a tenant: only pages that say so
 * (`allowConsoleApp`, e.g. its event log, the operators' audit trail) show it.
 */
export async function appOf(ctx: ConsoleContext, req: Request, options: { allowConsoleApp?: boolean } = {}): Promise<{ appId: string; features: AppFeatures }> {
  const appId = String(req.params.appId ?? '');
  if (!APP_ID_PATTERN.test(appId) || (appId === CONSOLE_APP_ID && !options.allowConsoleApp)) throw new ApiError('app_not_found', { detail: `There is no app '${appId.slice(0, 64)}'.` });
  return { appId, features: await ctx.services.apps.getFeatures(appId) };
}
