// The password-upgrade example's host (examples/password-upgrade/host.mjs) on a port the system
// picks, for tests: createHost on EXAMPLE_DATA_DIR, the middleware's settings from the
// Passwordless__* environment keys (Passwordless__Origins from the test). Prints `seeded <n>` and
// `listening <url>` once it serves; SIGTERM stops it.
import { createHost } from '../../examples/password-upgrade/host.mjs';

// A test signs in with passwords more often than a visitor may in a minute.
const host = await createHost({
  dataDir: process.env.EXAMPLE_DATA_DIR,
  publicApiUrl: process.env.Passwordless__ApiUrl,
  passwordAttempts: Number(process.env.PASSWORD_ATTEMPTS || 1000),
  throttle: { account: 1000, signIn: 1000 },
});
process.stdout.write(`seeded ${host.seeded}\n`);
const server = host.app.listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening http://127.0.0.1:${server.address().port}\n`);
});
process.on('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => {
    host.close();
    process.exit(0);
  });
});
