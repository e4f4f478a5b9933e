import type { Logger } from 'pino';
import type { PasswordlessMiddleware } from '../../express/passwordless';
import type { Services } from '../services';
import type { ConsoleCookie } from './consoleCookie';
import type { Operator } from './operatorStore';

/** What every console page and action is given. Nothing here comes from a request. */
export interface ConsoleContext {
  services: Services;
  /** The middleware the operators sign in through (step-up, passkeys, sessions, revokeUser). */
  auth: PasswordlessMiddleware<Operator>;
  /** Where the console is mounted, `/console`: every link starts with it. */
  base: string;
  /** PUBLIC_URL, without a trailing slash: every absolute link and the origin come from it. */
  publicUrl: string;
  origin: string;
  /** The session cookie's name and attributes: sign-out clears exactly this cookie. */
  sessionCookie: ConsoleCookie;
  now(): number;
  logger: Logger;
}
