import session from 'express-session';

const DAY_MS = 24 * 3600 * 1000;

/**
 * express-session's sessions in the host's SQLite database, so a restart keeps visitors signed
 * in. (The one published better-sqlite3 store is GPL-licensed; this is the whole of what is needed.)
 * Each row keeps the user id the middleware records in a signed-in session, indexed, so that
 * `sessionsOf(userId)` (the session list, ending sessions) reads one user's rows, not the table.
 *
 * A destroyed session stays destroyed (`endedStaysEnded`): destroying leaves a tombstone row, in
 * the same transaction, that outlives the session, and a `set` of a sid with a tombstone writes
 * nothing, in the same statement. So a request that loaded the session before it was ended (by
 * its owner, a sign-out, `revokeUser`) cannot write it back when it answers, whichever process
 * of the host it runs in.
 */
export class SqliteSessionStore extends session.Store {
  endedStaysEnded = true;
  #get;
  #ofUser;
  #set;
  #touch;
  #destroy;
  #prune;
  #pruneEnded;
  #timer;

  constructor(db, { pruneEveryMs = 15 * 60 * 1000 } = {}) {
    super();
    db.exec('CREATE TABLE IF NOT EXISTS sessions (sid TEXT PRIMARY KEY, data TEXT NOT NULL, expires INTEGER NOT NULL)');
    // Databases made before the session list get the column: their sessions are indexed as they are next saved.
    if (!db.prepare('SELECT name FROM pragma_table_info(?)').all('sessions').some((column) => column.name === 'user_id')) db.exec('ALTER TABLE sessions ADD COLUMN user_id TEXT');
    db.exec('CREATE INDEX IF NOT EXISTS sessions_user_id ON sessions (user_id) WHERE user_id IS NOT NULL');
    db.exec('CREATE TABLE IF NOT EXISTS ended_sessions (sid TEXT PRIMARY KEY, expires INTEGER NOT NULL)');
    this.#get = db.prepare('SELECT data FROM sessions WHERE sid = ? AND expires > ?');
    this.#ofUser = db.prepare('SELECT sid, data FROM sessions WHERE user_id = ? AND expires > ?');
    this.#set = db.prepare(
      'INSERT INTO sessions (sid, data, expires, user_id) SELECT @sid, @data, @expires, @userId WHERE NOT EXISTS (SELECT 1 FROM ended_sessions WHERE sid = @sid) ON CONFLICT(sid) DO UPDATE SET data = excluded.data, expires = excluded.expires, user_id = excluded.user_id',
    );
    this.#touch = db.prepare('UPDATE sessions SET expires = ? WHERE sid = ?');
    // The tombstone lives as long as the session could have (a day at least): a rolling session written back would last that long.
    const endOne = db.prepare('INSERT INTO ended_sessions (sid, expires) SELECT @sid, max(@until, coalesce((SELECT expires FROM sessions WHERE sid = @sid), 0)) WHERE true ON CONFLICT(sid) DO UPDATE SET expires = max(expires, excluded.expires)');
    const deleteOne = db.prepare('DELETE FROM sessions WHERE sid = ?');
    this.#destroy = db.transaction((sid, until) => {
      endOne.run({ sid, until });
      deleteOne.run(sid);
    });
    this.#prune = db.prepare('DELETE FROM sessions WHERE expires <= ?');
    this.#pruneEnded = db.prepare('DELETE FROM ended_sessions WHERE expires <= ?');
    this.#timer = setInterval(() => {
      this.#prune.run(Date.now());
      this.#pruneEnded.run(Date.now());
    }, pruneEveryMs);
    this.#timer.unref();
  }

  get(sid, done) {
    this.#run(done, () => {
      const row = this.#get.get(sid, Date.now());
      return row ? JSON.parse(row.data) : null;
    });
  }

  set(sid, data, done) {
    this.#run(done, () => this.#set.run({ sid, data: JSON.stringify(data), expires: expiryOf(data), userId: userIdOf(data) }));
  }

  /** The live sessions of one user, `{ [sid]: session }`: what the middleware's session list reads. */
  sessionsOf(userId, done) {
    this.#run(done, () => Object.fromEntries(this.#ofUser.all(String(userId), Date.now()).map((row) => [row.sid, JSON.parse(row.data)])));
  }

  touch(sid, data, done) {
    this.#run(done, () => this.#touch.run(expiryOf(data), sid));
  }

  destroy(sid, done) {
    this.#run(done, () => this.#destroy(sid, Date.now() + DAY_MS));
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

/** The user a signed-in session records (the middleware's `passwordlessSession.userId`), or null. */
function userIdOf(data) {
  const userId = data?.passwordlessSession?.userId;
  return typeof userId === 'string' ? userId : null;
}

function expiryOf(data) {
  const expires = data?.cookie?.expires;
  return expires ? new Date(expires).getTime() : Date.now() + DAY_MS;
}
