import type { RequestHandler } from 'express';
import { sendJson } from '../http';
import type { LocalUser } from '../userStore';
import type { RouteContext } from './context';

/** `GET /passwordless-config`: what the browser client needs (`new Client({apiUrl, apiKey})`); public by nature. */
export function configRoute<U extends LocalUser>(ctx: RouteContext<U>): RequestHandler {
  return (_req, res) => sendJson(res, 200, { apiUrl: ctx.publicApiUrl, apiKey: ctx.settings.apiKey });
}
