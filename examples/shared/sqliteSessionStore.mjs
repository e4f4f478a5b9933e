import session from 'express-session';

const DAY_MS = 24 * 3600 * 1000;

/**
 * express-session's sessions in the host's SQLite database, so a restart keeps visitors signed
 * in. (The one published better-sqlite3 store is GPL-licensed; this is the whole of what is needed.)
 */
export class SqliteSessionStore extends session.Store {
  #get;
  #set;
  #touch;
  #destroy;
  #prune;
  #timer;

  constructor(db, { pruneEveryMs = 15 * 60 * 1000 } = {}) {
    super();
    db.exec('CREATE TABLE IF NOT EXISTS sessions (sid TEXT PRIMARY KEY, data TEXT NOT NULL, expires INTEGER NOT NULL)');
    this.#get = db.prepare('SELECT data FROM sessions WHERE sid = ? AND expires > ?');
    this.#set = db.prepare('INSERT INTO sessions (sid, data, expires) VALUES (?, ?, ?) ON CONFLICT(sid) DO UPDATE SET data = excluded.data, expires = excluded.expires');
    this.#touch = db.prepare('UPDATE sessions SET expires = ? WHERE sid = ?');
    this.#destroy = db.prepare('DELETE FROM sessions WHERE sid = ?');
    this.#prune = db.prepare('DELETE FROM sessions WHERE expires <= ?');
    this.#timer = setInterval(() => this.#prune.run(Date.now()), pruneEveryMs);
    this.#timer.unref();
  }

  get(sid, done) {
    this.#run(done, () => {
      const row = this.#get.get(sid, Date.now());
      return row ? JSON.parse(row.data) : null;
    });
  }

  set(sid, data, done) {
    this.#run(done, () => this.#set.run(sid, JSON.stringify(data), expiryOf(data)));
  }

  touch(sid, data, done) {
    this.#run(done, () => this.#touch.run(expiryOf(data), sid));
  }

  destroy(sid, done) {
    this.#run(done, () => this.#destroy.run(sid));
  }

  close() {
    clearInterval(this.#timer);
  }

  #run(done, work) {
    let result;
    try {
      result = work();
    } catch (error) {
      done?.(error);
      return;
    }
    done?.(null, result);
  }
}

function expiryOf(data) {
  const expires = data?.cookie?.expires;
  return expires ? new Date(expires).getTime() : Date.now() + DAY_MS;
}
