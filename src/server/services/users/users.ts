import { z } from 'zod';
import { cursorParameter, encodeCursor } from '../../core/pageCursor';
import { ApiError } from '../../core/apiError';
import { ciObject, queryInt, unstorable } from '../../core/validation';
import type { UserRepository, UserSummary } from '../../store/repositories';
import { SYSTEM } from '../events/eventTypes';
import type { EventLog } from '../events/eventLog';

/** The most users one page holds, and the size of the pages an unpaged list is streamed in. */
export const MAX_USERS_PAGE = 1000;

/** A query parameter holding the `next` of a users page (`page` or `search`): the userId it carries. */
export const userCursorParameter = () => cursorParameter((userId) => Buffer.byteLength(userId, 'utf8') <= 64); // a userId: at most 64 bytes

/** `GET /users/list?limit=&after=`: either one starts paging; neither answers every user. */
export const usersListQuerySchema = ciObject({
  limit: queryInt(z.number({ message: 'must be a whole number' }).int().min(1, `must be between 1 and ${MAX_USERS_PAGE}`).max(MAX_USERS_PAGE, `must be between 1 and ${MAX_USERS_PAGE}`).optional()),
  after: userCursorParameter(),
});

/** One element of `/users/list`, as the reference answers it. */
function userView(user: UserSummary) {
  return {
    userId: user.userId,
    aliasCount: user.aliasCount,
    aliases: user.aliases,
    credentialsCount: user.credentialsCount,
    lastUsedAt: user.lastUsedAt === null ? null : new Date(user.lastUsedAt).toISOString(),
  };
}
export type UserView = ReturnType<typeof userView>;

/** What an `UserService` is built from. */
export interface UserServiceDeps {
  users: UserRepository;
  events: EventLog;
}

/**
 * The app's users: every userId that holds a passkey or an alias (see UserRepository). Counting
 * them is one read and listing them walks their key in pages; no request reads more than one page
 * of the app's users.
 */
export class UserService {
  private readonly users: UserRepository;
  private readonly events: EventLog;

  constructor(deps: UserServiceDeps) {
    this.users = deps.users;
    this.events = deps.events;
  }

  /** One page of users in the order of their userId, and the cursor of the next (null at the end). */
  async page(appId: string, after: string | undefined, limit: number = MAX_USERS_PAGE): Promise<{ values: UserView[]; next: string | null }> {
    const page = await this.users.page(appId, after ?? '', limit);
    return { values: page.users.map(userView), next: page.next === null ? null : encodeCursor(page.next) };
  }

  /**
   * One page of the users whose userId starts with `prefix` (any text: `%` and `_` are themselves),
   * after the userId `after` (exclusive; undefined: from the first), at most `limit`, in the order of
   * their UTF-8 bytes (on PostgreSQL too, whatever the database's collation; `page` follows the
   * collation), and the cursor of the next page (null at the end). As with `page`, `after` is a
   * userId, the key a `next` cursor carries (decode it with `userCursorParameter`). Each page is one
   * range of the users' key, however many users the app has. Text no userId can hold (a NUL, an
   * unpaired surrogate) or a limit outside 1..1000 is a 400.
   */
  async search(appId: string, prefix: string, after: string | undefined, limit: number = MAX_USERS_PAGE): Promise<{ values: UserView[]; next: string | null }> {
    const refused = [
      ['prefix', unstorable(prefix)],
      ['after', after === undefined ? undefined : unstorable(after)],
      ['limit', Number.isInteger(limit) && limit >= 1 && limit <= MAX_USERS_PAGE ? undefined : `must be between 1 and ${MAX_USERS_PAGE}`],
    ].filter((field): field is [string, string] => field[1] !== undefined);
    if (refused.length > 0) {
      throw new ApiError('validation_failed', { detail: `${refused[0][0]} ${refused[0][1]}.`, extras: { errors: Object.fromEntries(refused.map(([name, message]) => [name, [message]])) } });
    }
    const page = await this.users.search(appId, prefix, after, limit);
    return { values: page.users.map(userView), next: page.next === null ? null : encodeCursor(page.next) };
  }

  /** Every user, a page at a time: the caller holds one page, never the whole list. */
  async *pages(appId: string): AsyncGenerator<UserView[]> {
    for (let after = ''; ; ) {
      const page = await this.users.page(appId, after, MAX_USERS_PAGE);
      if (page.users.length > 0) yield page.users.map(userView);
      if (page.next === null) return;
      after = page.next;
    }
  }

  /** Users with at least one passkey (the reference's count): kept in the app's row, not counted. */
  count(appId: string): Promise<number> {
    return this.users.count(appId);
  }

  /** Removes every credential and alias of the user, atomically. `by`: who, for the event log (default: the reference's `System`). */
  async delete(appId: string, userId: string, by?: string): Promise<void> {
    await this.users.delete(appId, userId, { type: 'user.deleted', data: { userId } });
    this.events.record(appId, { type: 'ApiUserDeleted', message: "The user's passkeys and aliases were deleted.", subject: userId, performedBy: by ?? SYSTEM });
  }
}
