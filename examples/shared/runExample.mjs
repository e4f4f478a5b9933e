// What every example's one command does: unless Passwordless__ApiUrl points at a service that
// runs elsewhere, it starts the service too (embedded SQLite), creates the example's app and keys
// on the first run and keeps them, with the host's own database, under the data directory; then
// it starts the host. Ctrl-C stops both.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const cli = join(root, 'dist', 'cli.js');
const say = (line) => process.stdout.write(`${line}\n`);

/** The example app's keys: created offline with the service's CLI on the first run, then reused. */
function exampleKeys(dataDir, appId, serviceEnv) {
  const file = join(dataDir, 'keys.json');
  if (!existsSync(file)) {
    const created = execFileSync(process.execPath, [cli, 'apps', 'create', appId, '--admin-email', 'admin@localhost'], { env: serviceEnv, encoding: 'utf8' });
    const { apiKey1, apiSecret1 } = JSON.parse(created);
    writeFileSync(file, JSON.stringify({ apiKey: apiKey1, apiSecret: apiSecret1 }, null, 2), { mode: 0o600 });
    say(`Created the app '${appId}' and its keys (kept in ${file}).`);
  }
  return JSON.parse(readFileSync(file, 'utf8'));
}

async function waitUntilServing(url, child) {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error('the passwordless service stopped while starting (see its output above)');
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the passwordless service did not answer at ${url}`);
}

/** Starts the service as a child process, its output prefixed, and waits until it serves. */
async function startService(dataDir, appId, servicePort) {
  const env = {
    ...process.env,
    DATABASE_URL: `file:${join(dataDir, 'passwordless.db')}`,
    PORT: String(servicePort),
    HOST: '127.0.0.1',
    MAIL_FILE: join(dataDir, 'mail.md'),
    // A demo: the sign-up mails may go to any address from the first minute, not only the admin's.
    MAGIC_LINK_NEW_APP_PERIOD: '00:00:00',
    LOG_LEVEL: process.env.LOG_LEVEL || 'warn',
  };
  const keys = exampleKeys(dataDir, appId, env);
  const child = spawn(process.execPath, [cli, 'serve'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  for (const stream of [child.stdout, child.stderr]) stream.on('data', (chunk) => process.stderr.write(String(chunk).replace(/^(?=.)/gm, '[service] ')));
  const url = `http://127.0.0.1:${servicePort}`;
  await waitUntilServing(`${url}/health/http`, child);
  say(`Passwordless service: ${url} (data in ${dataDir})`);
  process.env.Passwordless__ApiUrl = url;
  process.env.Passwordless__ApiKey = keys.apiKey;
  process.env.Passwordless__ApiSecret = keys.apiSecret;
  return child;
}

/** Resolves true when `child` exits within `ms`, false otherwise. */
function exitsWithin(child, ms) {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

/**
 * Runs an example: the service (unless Passwordless__ApiUrl is set), then the host that
 * `createHost({dataDir, publicUrl, publicApiUrl, mailFile})` builds (`{app, close()}`), on PORT
 * (default 3000). `appId` names the service's app; `defaultDataDir` is used unless
 * EXAMPLE_DATA_DIR is set; `label` starts the line that says where the host listens.
 */
export async function runExample({ appId, defaultDataDir, label, createHost }) {
  const dataDir = resolve(process.env.EXAMPLE_DATA_DIR || defaultDataDir);
  const port = Number(process.env.PORT || 3000);
  const servicePort = Number(process.env.SERVICE_PORT || 7001);
  // Keys, sessions and the service's database live here: readable by this user only.
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });

  let service;
  let host;
  let server;
  let stopping = false;

  async function stop(code, signal) {
    if (stopping) process.exit(code);
    stopping = true;
    server?.closeAllConnections();
    await new Promise((r) => (server ? server.close(r) : r()));
    host?.close();
    if (service && service.exitCode === null) {
      // 'close', not 'exit': only then has the service's last output (its "stopped" line) been relayed.
      const exited = new Promise((r) => service.once('close', r));
      // Ctrl-C in a terminal reaches the service too (one process group) and it stops by itself;
      // another signal now would make it exit at once, without writing what it buffered. It is
      // signalled only when the SIGINT was this process's alone (it is still running after a while).
      if (signal !== 'SIGINT' || !(await exitsWithin(service, 3000))) service.kill('SIGTERM');
      await exited;
    }
    process.exit(code);
  }
  process.on('SIGINT', () => stop(0, 'SIGINT'));
  process.on('SIGTERM', () => stop(0, 'SIGTERM'));

  try {
    if (!process.env.Passwordless__ApiUrl) service = await startService(dataDir, appId, servicePort);
    else say(`Using the passwordless service at ${process.env.Passwordless__ApiUrl}`);
    // Where browsers open this host: its links and the origin its sign-ins must come from.
    const publicUrl = process.env.Passwordless__Origins ? undefined : process.env.EXAMPLE_PUBLIC_URL || `http://localhost:${port}`;
    host = await createHost({
      dataDir,
      publicUrl,
      publicApiUrl: process.env.EXAMPLE_PUBLIC_API_URL || process.env.Passwordless__ApiUrl,
      mailFile: service ? join(dataDir, 'mail.md') : process.env.EXAMPLE_MAIL_FILE,
    });
    server = await new Promise((resolve, reject) => {
      const s = host.app.listen(port, '127.0.0.1', () => resolve(s));
      s.once('error', reject);
    });
    say(`${label}: http://localhost:${port}  (Ctrl-C stops it)`);
  } catch (error) {
    process.stderr.write(`${error.message}\n`);
    await stop(1);
  }
}
