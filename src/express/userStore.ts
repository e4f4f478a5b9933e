import { randomUUID } from 'node:crypto';

/** What the middleware needs to know of a local user. Hosts may keep more. */
export interface LocalUser {
  /** The user's id in the host; also the service's userId unless UserIdClaimType names another property. */
  id: string;
  email: string;
  username: string;
  displayName: string;
}

export interface NewUser {
  /**
   * The user's id at the passkey service (the WebAuthn user handle), chosen by the middleware (a
   * random UUID) before the user's first passkey was made. Keep it as the user's `id`, or, with
   * `UserIdClaimType` set to another property, under that property.
   */
  userId: string;
  email: string;
  username: string;
  displayName: string;
}

/**
 * The host's users, as the middleware uses them. `create` throws {@link UserExistsError} when the
 * email address is taken; the finders answer undefined (or null) for an unknown user.
 */
export interface UserStore<U extends LocalUser = LocalUser> {
  create(user: NewUser): Promise<U>;
  findById(id: string): Promise<U | undefined | null>;
  remove(id: string): Promise<void>;
  /**
   * The user whose service userId (the property `UserIdClaimType` names) is `userId`. Required
   * when `UserIdClaimType` names a property other than `id`: sign-in then finds users by it.
   */
  findByUserId?(userId: string): Promise<U | undefined | null>;
  /** The user with this email address (any case). Required for account recovery by email. */
  findByEmail?(email: string): Promise<U | undefined | null>;
}

/** Thrown by a store's `create` for an email address another user already has. */
export class UserExistsError extends Error {
  constructor() {
    super('A user with this email address already exists.');
    this.name = 'UserExistsError';
  }
}

/** A store in memory, for tests and demos: a user's id is the service userId; email addresses unique in any case. */
export class InMemoryUserStore implements UserStore {
  readonly #users = new Map<string, LocalUser>();

  async create(user: NewUser): Promise<LocalUser> {
    const email = user.email.toLowerCase();
    for (const existing of this.#users.values()) if (existing.email.toLowerCase() === email) throw new UserExistsError();
    const created = { id: user.userId || randomUUID(), email: user.email, username: user.username, displayName: user.displayName };
    this.#users.set(created.id, created);
    return { ...created };
  }

  async findById(id: string): Promise<LocalUser | undefined> {
    const user = this.#users.get(id);
    return user && { ...user };
  }

  async remove(id: string): Promise<void> {
    this.#users.delete(id);
  }

  async findByEmail(email: string): Promise<LocalUser | undefined> {
    const wanted = email.toLowerCase();
    for (const user of this.#users.values()) if (user.email.toLowerCase() === wanted) return { ...user };
    return undefined;
  }

  /** How many users the store holds (for tests that check nothing was left behind). */
  get size(): number {
    return this.#users.size;
  }
}
