import { PasswordlessSettingsError } from './errors';
import type { EmailVerification } from './routes/context';
import type { LocalUser, UserStore } from './userStore';

const DEFAULT_LINK_LIFETIME_SECONDS = 900;

/** A mailed link's lifetime and landing page, from `true` or `{linkLifetimeSeconds, page}`; undefined when off. */
export function linkOption(option: boolean | { linkLifetimeSeconds?: number; page?: string } | undefined, name: string): EmailVerification | undefined {
  if (!option) return undefined;
  const given = option === true ? {} : option;
  const linkLifetimeSeconds = given.linkLifetimeSeconds ?? DEFAULT_LINK_LIFETIME_SECONDS;
  if (!Number.isInteger(linkLifetimeSeconds) || linkLifetimeSeconds < 60 || linkLifetimeSeconds > 86_400) {
    throw new PasswordlessSettingsError(`${name}.linkLifetimeSeconds`, 'must be a whole number of seconds from 60 to 86400.');
  }
  const page = given.page ?? '/';
  if (!page.startsWith('/') || page.startsWith('//')) throw new PasswordlessSettingsError(`${name}.page`, "must be a path on this site, such as '/signup'.");
  return { linkLifetimeSeconds, page };
}

/** The user whose service userId this is: by `findById` when the userId is the user's id, else by `findByUserId`. */
export function userFinder<U extends LocalUser>(users: UserStore<U>, claim: string | undefined): (userId: string) => Promise<U | null | undefined> {
  if (claim === undefined || claim === 'id') return (userId) => users.findById(userId);
  const findByUserId = users.findByUserId?.bind(users);
  if (!findByUserId) {
    throw new PasswordlessSettingsError('Passwordless__UserIdClaimType', `names '${claim.slice(0, 64)}', not 'id': the user store must then implement findByUserId(userId), so that sign-in finds users by it.`);
  }
  return findByUserId;
}

/** The service userId of a user: the `UserIdClaimType` property, else `id`, else `sub`. */
export function userIdReader(claim: string | undefined): (user: unknown) => string | undefined {
  return (user) => {
    if (user === null || typeof user !== 'object') return undefined;
    const record = user as Record<string, unknown>;
    const value = claim !== undefined ? record[claim] : (record.id ?? record.sub);
    return typeof value === 'string' || typeof value === 'number' ? String(value) : undefined;
  };
}

/** Seconds between `min` and `max`, or the default. */
export function secondsOption(value: number | undefined, name: string, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value < min || value > max) throw new PasswordlessSettingsError(name, `must be a number of seconds from ${min} to ${max}.`);
  return value;
}

/** Web origins for `/.well-known/webauthn`. */
export function originsOption(values: readonly string[] | undefined, name: string): string[] | undefined {
  if (values === undefined) return undefined;
  return values.map((value) => {
    let url: URL | undefined;
    try {
      url = new URL(value);
    } catch {
      url = undefined;
    }
    if (!url || url.protocol !== 'https:' || url.origin !== value.replace(/\/$/, '')) throw new PasswordlessSettingsError(name, `must list https origins, not '${String(value).slice(0, 80)}'.`);
    return url.origin;
  });
}
