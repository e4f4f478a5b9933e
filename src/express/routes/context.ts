import type { Request, RequestHandler } from 'express';
import type { Strategy } from 'passport';
import type { PasswordlessClient } from '../client';
import type { HostMail } from '../hostMail';
import type { HostOrigins } from '../hostOrigins';
import type { NewPasskeys } from '../newPasskeys';
import type { PasskeyHooks } from '../passkeyHooks';
import type { AccountSessions } from '../sessions/accountSessions';
import type { PasswordlessSettings } from '../settings';
import type { TokenAcceptance } from '../strategy';
import type { LocalUser, UserStore } from '../userStore';
import type { Recovery } from './recover';

/** The session cookie's attributes, as express-session's `cookie` option gives them: what logout clears it with. */
export interface SessionCookieOptions {
  path?: string;
  domain?: string;
  secure?: boolean;
  sameSite?: boolean | 'lax' | 'strict' | 'none';
  httpOnly?: boolean;
}

/** Sign-up by email first: what `verifyEmail` sets. */
export interface EmailVerification {
  /** How long the mailed link works, in seconds. */
  linkLifetimeSeconds: number;
  /** The host page the link lands on (the token travels in its fragment). */
  page: string;
}

/** What every route of the middleware works with, built once by `passwordless()`. */
export interface RouteContext<U extends LocalUser> {
  settings: PasswordlessSettings;
  client: PasswordlessClient;
  users: UserStore<U>;
  passport: PassportLike;
  /** Add the email address to the aliases a new user registers with (so it signs in by email). */
  emailAsAlias: boolean;
  /** Accept `aliases` from the visitor at sign-up (else only the email address becomes one). */
  allowVisitorAliases: boolean;
  /** Sign-up mails a verification link first; undefined: the passkey ceremony starts at once. */
  verifyEmail: EmailVerification | undefined;
  /** The path of the route the verification link opens. */
  verifyEmailPath: string;
  /** The host's origins and the base of its links, from configuration (`Origins`, `PublicUrl`). */
  site: HostOrigins;
  /** Account recovery by email, when on. */
  recovery: Recovery | undefined;
  /** The per-address gates and the host-wide budget of the mails the routes ask the service for. */
  mail: HostMail;
  /** The host's challenge before a sign-up (`signUpChallenge`). */
  signUpChallenge: ((req: Request) => boolean | Promise<boolean>) | undefined;
  /** What the host hears of added and deleted passkeys. */
  hooks: PasskeyHooks<U>;
  /** Added passkeys told to the host once (`onPasskeyAdded`), reported by the browser or found at the service. */
  newPasskeys: NewPasskeys<U>;
  /** How long a step-up counts, in seconds (`stepUpMaxAge`). */
  stepUpMaxAge: number;
  /** How long after a sign-up or recovery a passkey may be added without a step-up, in seconds. */
  freshSessionSeconds: number;
  /** How old a passkey made during the session must be before it confirms a step-up, in seconds. */
  newPasskeyStepUpDelaySeconds: number;
  /** How the login holds a token to the host's origins and purposes (routes narrow the types and purposes). */
  tokenAcceptance: TokenAcceptance;
  sessionCookieName: string;
  /** What the session cookie is cleared with: the attributes it was set with. */
  sessionCookieOptions: SessionCookieOptions;
  publicApiUrl: string;
  publicUser(user: U): Record<string, unknown>;
  userIdOf(user: unknown): string | undefined;
  /** The local user whose service userId this is (by `UserIdClaimType`). */
  findUser(userId: string): Promise<U | null | undefined>;
  logger: HostLogger;
  /** Where each route is mounted (null: not mounted), for the browser module's config. */
  paths: Record<string, string | null>;
  /** How often the browser module restarts an autofill request. */
  autofillRestartSeconds: number;
  /** The clock of the time rules. */
  now(): number;
  /** The session list and ending sessions, with `sessionStore`. */
  sessions: AccountSessions | undefined;
}

/** pino-compatible: `logger.error({...}, 'message')`; `warn` is used where given. */
export interface HostLogger {
  error(details: Record<string, unknown>, message: string): void;
  warn?(details: Record<string, unknown>, message: string): void;
}

/** The parts of a passport instance (the module's default, or `new Passport()`) the middleware uses. */
export interface PassportLike {
  use(name: string, strategy: Strategy): unknown;
  authenticate(strategy: string, callback: (error: unknown, user: unknown, info: unknown) => void): RequestHandler;
  serializeUser(fn: (user: Express.User, done: (error: unknown, id?: string) => void) => void): void;
  deserializeUser(fn: (id: unknown, done: (error: unknown, user?: unknown) => void) => void): void;
}
