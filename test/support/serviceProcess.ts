import { execFileSync, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { join } from 'node:path';
import supertest from 'supertest';
import { freeLoopbackPort } from './net';
import { MANAGEMENT_KEY, createTestDatabase, uniqueAppId, type TestApp, type TestDatabase } from './testService';

const ROOT = join(__dirname, '..', '..');
export const CLI = join(ROOT, 'dist', 'cli.js');

let built = false;
/** Compiles dist/ once per test process when a source is newer than the build (as `npm start` does). */
export function ensureBuilt(): void {
  if (built) return;
  execFileSync(process.execPath, [join(ROOT, 'scripts', 'buildIfNeeded.mjs')], { cwd: ROOT, stdio: 'inherit' });
  built = true;
}

/** The environment a child gets: this one without test switches or middleware settings. */
export function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!/^(TEST_|Passwordless__|DATABASE_URL$|PORT$|MANAGEMENT_KEY$)/i.test(key)) env[key] = value;
  return { ...env, ...extra };
}

/** Polls `url` until it answers 200, the child exits, or the deadline passes. */
export async function waitUntilServing(url: string, child: ChildProcessWithoutNullStreams, output: () => string, deadlineMs = 30_000): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  let exited = false;
  child.once('exit', () => (exited = true));
  while (Date.now() < deadline) {
    if (exited) throw new Error(`the process exited before serving:\n${output()}`);
    try {
      if ((await fetch(url)).status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`not serving ${url} after ${deadlineMs} ms:\n${output()}`);
}

export interface ServiceProcess {
  url: string;
  /** The service's process id (for its memory, in /proc). */
  pid: number;
  /** Where the service writes mail (no SMTP configured). */
  mailFile: string;
  /** supertest against the process, for the ceremony helpers. */
  http: ReturnType<typeof supertest>;
  /** Creates an app through the management API. */
  createApp(): Promise<TestApp>;
  /** What the process wrote to stdout and stderr so far (its log lines). */
  output(): string;
  stop(): Promise<void>;
}

/**
 * The service as users run it (`node dist/cli.js serve`), on a free port and a fresh SQLite file,
 * or on `shared`, a database the caller owns (and drops): several processes on one are replicas.
 */
export async function startServiceProcess(env: Record<string, string> = {}, shared?: TestDatabase): Promise<ServiceProcess & { database: TestDatabase }> {
  ensureBuilt();
  const database = shared ?? (await createTestDatabase('sqlite'));
  const drop = () => (shared ? Promise.resolve() : database.drop());
  const port = await freeLoopbackPort();
  const url = `http://127.0.0.1:${port}`;
  const mailFile = database.url.startsWith('file:') ? `${database.url.replace(/^file:/, '')}.mail.md` : join(ROOT, '.test-tmp', `mail-${port}.md`);
  // `{port}` in a value (PUBLIC_URL: 'http://localhost:{port}') is the port picked here.
  const given = Object.fromEntries(Object.entries(env).map(([key, value]) => [key, value.replaceAll('{port}', String(port))]));
  const child = spawn(process.execPath, [CLI, 'serve'], {
    env: childEnv({ DATABASE_URL: database.url, PORT: String(port), HOST: '127.0.0.1', MANAGEMENT_KEY, LOG_LEVEL: 'warn', MAIL_FILE: mailFile, ...given }),
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  try {
    await waitUntilServing(`${url}/health/http`, child, () => output);
  } catch (error) {
    child.kill('SIGKILL');
    await drop();
    throw error;
  }
  const http = supertest(url);
  return {
    url,
    pid: child.pid!,
    mailFile,
    http,
    database,
    async createApp() {
      const appId = uniqueAppId();
      const res = await http.post(`/admin/apps/${appId}/create`).set('ManagementKey', MANAGEMENT_KEY).send({ adminEmail: 'admin@example.com' });
      if (res.status !== 200) throw new Error(`creating app ${appId} failed: ${res.status} ${JSON.stringify(res.body)}`);
      return { appId, apiKey: res.body.apiKey1, apiKey2: res.body.apiKey2, apiSecret: res.body.apiSecret1, apiSecret2: res.body.apiSecret2 };
    },
    output: () => output,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
        await exited;
        clearTimeout(timer);
      }
      await drop();
    },
  };
}
