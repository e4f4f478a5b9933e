import type { RequestHandler } from 'express';
import type { Strategy } from 'passport';
import type { PasswordlessClient } from '../client';
import type { PasswordlessSettings } from '../settings';
import type { LocalUser, UserStore } from '../userStore';

/** What every route of the middleware works with, built once by `passwordless()`. */
export interface RouteContext<U extends LocalUser> {
  settings: PasswordlessSettings;
  client: PasswordlessClient;
  users: UserStore<U>;
  passport: PassportLike;
  /** Add the email address to the aliases a new user registers with (so it signs in by email). */
  emailAsAlias: boolean;
  sessionCookieName: string;
  publicApiUrl: string;
  publicUser(user: U): Record<string, unknown>;
  userIdOf(user: unknown): string | undefined;
  logger: HostLogger;
}

/** pino-compatible: `logger.error({...}, 'message')`. */
export interface HostLogger {
  error(details: Record<string, unknown>, message: string): void;
}

/** The parts of a passport instance (the module's default, or `new Passport()`) the middleware uses. */
export interface PassportLike {
  use(name: string, strategy: Strategy): unknown;
  authenticate(strategy: string, callback: (error: unknown, user: unknown, info: unknown) => void): RequestHandler;
  serializeUser(fn: (user: Express.User, done: (error: unknown, id?: string) => void) => void): void;
  deserializeUser(fn: (id: unknown, done: (error: unknown, user?: unknown) => void) => void): void;
}
