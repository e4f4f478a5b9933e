// `npm run example:password-upgrade`: the password app that moves to passkeys, in one command.
// Unless Passwordless__ApiUrl points at a service that runs elsewhere, it starts the service too
// (embedded SQLite), creates the app 'passwordupgrade' and its keys on the first run, and seeds
// the demo users, all kept under EXAMPLE_DATA_DIR. Ctrl-C stops both.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runExample } from '../shared/runExample.mjs';

const here = dirname(fileURLToPath(import.meta.url));

await runExample({
  appId: 'passwordupgrade',
  defaultDataDir: join(here, 'data'),
  label: 'Password-upgrade example',
  // Imported once the service's settings are in the environment.
  async createHost(options) {
    const { createHost, DEMO_USERS } = await import('./host.mjs');
    // A browser test drives the page faster than a person: it may raise the per-address limits.
    const perMinute = Number(process.env.EXAMPLE_REQUESTS_PER_MINUTE) || undefined;
    const host = await createHost({ ...options, ...(perMinute && { throttle: { signIn: perMinute, account: perMinute }, passwordAttempts: perMinute }) });
    if (host.seeded > 0) {
      process.stdout.write(`Seeded ${host.seeded} password users:\n${DEMO_USERS.map((u) => `  ${u.email}  password: ${u.password}`).join('\n')}\n`);
    }
    return host;
  },
});
