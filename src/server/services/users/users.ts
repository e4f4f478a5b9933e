import type { Db } from '../../store';
import { SYSTEM } from '../events/eventTypes';
import type { EventLog } from '../events/eventLog';

export class UserService {
  constructor(
    private readonly db: Db,
    private readonly events: EventLog,
  ) {}

  /** Users are the distinct userIds that hold a credential or an alias. */
  async list(appId: string) {
    const [credentials, aliases] = await Promise.all([
      this.db.credential.groupBy({ by: ['userId'], where: { tenant: appId }, _count: { _all: true }, _max: { lastUsedAt: true } }),
      this.db.alias.findMany({ where: { tenant: appId }, select: { userId: true, plaintext: true }, orderBy: { aliasHash: 'asc' } }),
    ]);
    const users = new Map<string, { userId: string; aliasCount: number; aliases: (string | null)[]; credentialsCount: number; lastUsedAt: string | null }>();
    const entry = (userId: string) => {
      let user = users.get(userId);
      if (!user) users.set(userId, (user = { userId, aliasCount: 0, aliases: [], credentialsCount: 0, lastUsedAt: null }));
      return user;
    };
    for (const c of credentials) {
      const user = entry(c.userId);
      user.credentialsCount = c._count._all;
      user.lastUsedAt = c._max.lastUsedAt?.toISOString() ?? null;
    }
    for (const a of aliases) {
      const user = entry(a.userId);
      user.aliasCount += 1;
      user.aliases.push(a.plaintext);
    }
    return [...users.values()].sort((a, b) => a.userId.localeCompare(b.userId));
  }

  async count(appId: string): Promise<number> {
    return (await this.db.credential.groupBy({ by: ['userId'], where: { tenant: appId } })).length;
  }

  /** Removes every credential and alias of the user, atomically. */
  async delete(appId: string, userId: string): Promise<void> {
    await this.db.$transaction([this.db.credential.deleteMany({ where: { tenant: appId, userId } }), this.db.alias.deleteMany({ where: { tenant: appId, userId } })]);
    this.events.record(appId, { type: 'ApiUserDeleted', message: "The user's passkeys and aliases were deleted.", subject: userId, performedBy: SYSTEM });
  }
}
