import type { RequestHandler } from 'express';
import { sendJson } from '../http';
import type { LocalUser } from '../userStore';
import type { RouteContext } from './context';

/**
 * `GET /passwordless-config`: what the browser client needs (`new Client({apiUrl, apiKey})`), and
 * what the browser module needs besides (where each route is mounted, how often to restart an
 * autofill request); public by nature.
 */
export function configRoute<U extends LocalUser>(ctx: RouteContext<U>): RequestHandler {
  // Pages need neither this route nor the doctor's.
  const mounted = Object.fromEntries(Object.entries(ctx.paths).filter((entry): entry is [string, string] => entry[1] !== null && entry[0] !== 'config' && entry[0] !== 'doctor'));
  const body = { apiUrl: ctx.publicApiUrl, apiKey: ctx.settings.apiKey, paths: mounted, autofillRestartSeconds: ctx.autofillRestartSeconds };
  return (_req, res) => sendJson(res, 200, body);
}
