// The example host app (examples/express-host/host.mjs) on a port the system picks, for tests:
// createHost on EXAMPLE_DATA_DIR, the middleware's settings from the Passwordless__* environment
// keys, as run.mjs does when Passwordless__ApiUrl names a running service. Prints
// `listening <url>` once it serves; SIGTERM stops it.
import { createHost } from '../../examples/express-host/host.mjs';

// The umask an operator's shell might have (tests of the files' modes set it).
if (process.env.EXAMPLE_UMASK) process.umask(Number.parseInt(process.env.EXAMPLE_UMASK, 8));

// One test address signs up many times, some addresses twice: more than a visitor's default budget,
// than one mail per address in five minutes, and than the host's default mail budget
// (Passwordless__Origins comes from the test).
const host = createHost({
  dataDir: process.env.EXAMPLE_DATA_DIR,
  publicApiUrl: process.env.Passwordless__ApiUrl,
  throttle: { signUp: 100, secondsBetweenMailsPerAddress: 0 },
  mailBudget: { perHour: 1000, perDay: 1000 },
});
// Behind the test's reverse proxy: what an operator sets (or forgets) in front of a host.
if (process.env.EXAMPLE_TRUST_PROXY) host.app.set('trust proxy', process.env.EXAMPLE_TRUST_PROXY);
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
