import { randomUUID } from 'node:crypto';
import { UserExistsError } from 'passwordless-selfhost/express';
import { hashPassword } from './passwords.mjs';

const PUBLIC_COLUMNS = 'id, email, username, display_name AS displayName';

/**
 * The users of a password app, in its own SQLite database: what it had before passkeys, plus
 * nothing. The id is a random UUID, which the passkey service also knows the user by (the WebAuthn
 * user handle): it carries no personal data. The finders never answer the password hash.
 */
export class PasswordUserStore {
  #db;
  #insert;
  #byId;
  #byEmail;
  #hashByEmail;
  #count;
  #delete;

  constructor(db) {
    db.exec(`CREATE TABLE IF NOT EXISTS users (
      id TEXT PRIMARY KEY,
      email TEXT NOT NULL UNIQUE COLLATE NOCASE,
      username TEXT NOT NULL,
      display_name TEXT NOT NULL,
      password_hash TEXT,
      created_at TEXT NOT NULL
    )`);
    this.#db = db;
    this.#insert = db.prepare('INSERT INTO users (id, email, username, display_name, password_hash, created_at) VALUES (?, ?, ?, ?, ?, ?)');
    this.#byId = db.prepare(`SELECT ${PUBLIC_COLUMNS} FROM users WHERE id = ?`);
    this.#byEmail = db.prepare(`SELECT ${PUBLIC_COLUMNS} FROM users WHERE email = ?`);
    this.#hashByEmail = db.prepare(`SELECT ${PUBLIC_COLUMNS}, password_hash AS passwordHash FROM users WHERE email = ?`);
    this.#count = db.prepare('SELECT COUNT(*) AS n FROM users').pluck();
    this.#delete = db.prepare('DELETE FROM users WHERE id = ?');
  }

  /**
   * Adds the users, each with its password hashed, when the table is empty (the first run); answers
   * how many were added.
   */
  async seed(users) {
    if (this.#count.get() > 0) return 0;
    const rows = [];
    for (const user of users) rows.push([randomUUID(), user.email, user.username ?? user.email, user.displayName, await hashPassword(user.password)]);
    const now = new Date().toISOString();
    this.#db.transaction(() => {
      for (const row of rows) this.#insert.run(...row, now);
    })();
    return rows.length;
  }

  /** The user with this address and their password hash, for the password sign-in only. */
  async findWithPasswordHash(email) {
    const row = this.#hashByEmail.get(email);
    if (!row) return undefined;
    const { passwordHash, ...user } = row;
    return { user, passwordHash: passwordHash ?? undefined };
  }

  // The passkey middleware's user store (passwordless-selfhost/express): a passkey-only sign-up
  // would come through create; this app leaves sign-up as it was, so only the finders are used.
  async create({ userId: id, email, username, displayName }) {
    try {
      this.#insert.run(id, email, username, displayName, null, new Date().toISOString());
    } catch (error) {
      if (error.code === 'SQLITE_CONSTRAINT_UNIQUE') throw new UserExistsError();
      throw error;
    }
    return { id, email, username, displayName };
  }

  async findById(id) {
    return this.#byId.get(id);
  }

  async findByEmail(email) {
    return this.#byEmail.get(email);
  }

  async remove(id) {
    this.#delete.run(id);
  }
}
