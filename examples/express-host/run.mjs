// `npm run example`: the whole demo in one command. Unless Passwordless__ApiUrl points at a service
// that runs elsewhere, it starts the service too (embedded SQLite), creates the example's app and
// keys on the first run and keeps them, with the host's own database, under EXAMPLE_DATA_DIR.
// Ctrl-C stops both.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runExample } from '../shared/runExample.mjs';

const here = dirname(fileURLToPath(import.meta.url));

await runExample({
  appId: 'example',
  defaultDataDir: join(here, 'data'),
  label: 'Example host app',
  // Imported once the service's settings are in the environment.
  createHost: async (options) => (await import('./host.mjs')).createHost(options),
});
