import { UserExistsError } from 'passwordless-selfhost/express';

/**
 * The host's users in its own SQLite database. The id is the passkey service's userId (a random
 * UUID the middleware chose when the sign-up began): it carries no personal data. Email addresses
 * are unique in any case.
 */
export class SqliteUserStore {
  #insert;
  #byId;
  #byEmail;
  #delete;

  constructor(db) {
    db.exec(`CREATE TABLE IF NOT EXISTS users (
      id TEXT PRIMARY KEY,
      email TEXT NOT NULL UNIQUE COLLATE NOCASE,
      username TEXT NOT NULL,
      display_name TEXT NOT NULL,
      created_at TEXT NOT NULL
    )`);
    this.#insert = db.prepare('INSERT INTO users (id, email, username, display_name, created_at) VALUES (?, ?, ?, ?, ?)');
    this.#byId = db.prepare('SELECT id, email, username, display_name AS displayName FROM users WHERE id = ?');
    this.#byEmail = db.prepare('SELECT id, email, username, display_name AS displayName FROM users WHERE email = ?');
    this.#delete = db.prepare('DELETE FROM users WHERE id = ?');
  }

  async create({ userId: id, email, username, displayName }) {
    try {
      this.#insert.run(id, email, username, displayName, new Date().toISOString());
    } catch (error) {
      if (error.code === 'SQLITE_CONSTRAINT_UNIQUE') throw new UserExistsError();
      throw error;
    }
    return { id, email, username, displayName };
  }

  async findById(id) {
    return this.#byId.get(id);
  }

  /** For account recovery by email (the column compares without regard to case). */
  async findByEmail(email) {
    return this.#byEmail.get(email);
  }

  async remove(id) {
    this.#delete.run(id);
  }
}
