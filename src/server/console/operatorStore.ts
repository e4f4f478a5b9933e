import type { LocalUser, NewUser, UserStore } from '../../express/userStore';
import type { Services } from '../services';
import { CONSOLE_APP_ID } from './consoleAppId';

/** An operator of the console: a user of the console app, known by the email address stored as its alias in plain text. */
export type Operator = LocalUser;

/** An email address as the console stores it: one case, so that one address is one operator. */
export const normaliseEmail = (email: string): string => email.trim().toLowerCase();

/**
 * The console's user store for the middleware, kept in the service itself: an operator is a user
 * of the console app, and exists while it has its email alias (removing one deletes it with its
 * passkeys). Nobody signs up: operators are invited (inviteOperator.ts), so `create` refuses.
 */
export class OperatorStore implements UserStore<Operator> {
  constructor(private readonly services: Services) {}

  async create(_user: NewUser): Promise<Operator> {
    throw new Error('Operators are invited (console invite), not signed up.');
  }

  async findById(id: string): Promise<Operator | undefined> {
    if (typeof id !== 'string' || id === '' || Buffer.byteLength(id) > 64) return undefined;
    const aliases = await this.services.aliases.list(CONSOLE_APP_ID, id);
    const email = aliases.find((alias) => alias.plaintext)?.plaintext;
    return email ? { id, email, username: email, displayName: email } : undefined;
  }

  async findByEmail(email: string): Promise<Operator | undefined> {
    const userId = await this.services.aliases.userIdOf(CONSOLE_APP_ID, normaliseEmail(email));
    return userId === undefined ? undefined : this.findById(userId);
  }

  async remove(id: string): Promise<void> {
    await this.services.users.delete(CONSOLE_APP_ID, id, 'console');
  }
}
