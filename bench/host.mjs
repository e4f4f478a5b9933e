// The host for the bench's "full host sign-in": the example host app (examples/express-host), as
// an operator runs it behind a TLS proxy (`trust proxy`, HTTPS cookies), with its own SQLite users
// and session store, the middleware's throttles in the path but out of reach. The bench's signers
// are its users. Env: PORT, HOST_DATA_DIR, HOST_CREDENTIALS (the signers' file) and the
// middleware's Passwordless__* settings.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { createHost } from '../examples/express-host/host.mjs';
import { SqliteUserStore } from '../examples/express-host/sqliteUserStore.mjs';

const unreachable = 100_000_000;
const host = createHost({
  dataDir: process.env.HOST_DATA_DIR,
  throttle: { signUp: unreachable, signIn: unreachable, account: unreachable, recover: unreachable, secondsBetweenMailsPerAddress: 0 },
});
host.app.set('trust proxy', 'loopback');

const db = new Database(join(process.env.HOST_DATA_DIR, 'host.db'));
const users = new SqliteUserStore(db);
for (const { userId } of JSON.parse(readFileSync(process.env.HOST_CREDENTIALS, 'utf8'))) {
  if (!(await users.findById(userId))) await users.create({ userId, email: `${userId}@example.com`, username: userId, displayName: userId });
}
db.close();

const server = host.app.listen(Number(process.env.PORT), '127.0.0.1');
process.on('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => {
    host.close();
    process.exit(0);
  });
});
