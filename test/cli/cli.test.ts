import { outputOf, type ChildResult } from '../support/childProcess';
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { ApiKeyAuthenticator } from '../../src/server/services/apps/apiKeys';
import { createLogger } from '../../src/server/core/logger';
import { openStore } from '../../src/server/store';
import { loadMigrations } from '../../src/server/store/migrate';
import { MANAGEMENT_KEY } from '../support/testService';

// These tests run the compiled command line the way an operator does (`npm start` runs
// `node dist/cli.js serve`), so the build itself is part of what they check.

const ROOT = join(__dirname, '..', '..');
const CLI = join(ROOT, 'dist', 'cli.js');
const TMP = join(ROOT, '.test-tmp');
// A test runs up to ten CLI processes, each loading Prisma: 2.5 to 6 s apiece on a loaded 2-core machine.
const CLI_TIMEOUT_MS = 90_000;

type CliResult = ChildResult;

/** Only what the test gives: nothing leaks in from the environment jest runs in. */
const cleanEnv = (env: Record<string, string>) => ({ PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', ...env });

function startCli(args: string[], env: Record<string, string>): ChildProcessWithoutNullStreams {
  return spawn(process.execPath, [CLI, ...args], { cwd: ROOT, env: cleanEnv(env) });
}

function runCli(args: string[], env: Record<string, string>): Promise<CliResult> {
  return outputOf(startCli(args, env));
}

/** A directory for one test's files, removed afterwards. */
function tempDir(): { path: string; remove(): void } {
  const path = join(TMP, `cli-${randomBytes(4).toString('hex')}`);
  mkdirSync(path, { recursive: true });
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/** A port nobody listens on right now. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/**
 * Resolves with the URL the service logs once it listens; rejects if the process exits first.
 * Waiting on the service's own signal avoids both sleeps and blind polling.
 */
function waitUntilListening(child: ChildProcessWithoutNullStreams): Promise<string> {
  return new Promise((resolve, reject) => {
    let buffered = '';
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.stdout.on('data', (chunk) => {
      buffered += chunk;
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) {
        const entry = JSON.parse(line) as { msg?: string; url?: string };
        if (entry.msg === 'passwordless service listening' && entry.url) resolve(entry.url);
      }
    });
    child.once('exit', (code) => reject(new Error(`serve exited with ${code} before listening: ${stderr}`)));
  });
}

const exitOf = (child: ChildProcessWithoutNullStreams) =>
  new Promise<number | null>((resolve) => (child.exitCode !== null ? resolve(child.exitCode) : child.once('exit', resolve)));

beforeAll(() => {
  const build = spawnSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  expect({ status: build.status, output: build.stdout + build.stderr }).toEqual({ status: 0, output: '' });
}, 120_000);

describe('configuration errors', () => {
  it.each<[string, Record<string, string>, string]>([
    ['serve', { PORT: 'abc' }, 'PORT'],
    ['serve', { PORT: '70000' }, 'PORT'],
    ['migrate', { DATABASE_URL: 'mysql://db/x' }, 'DATABASE_URL'],
    ['serve', { MANAGEMENT_KEY: 'short-secret' }, 'MANAGEMENT_KEY'],
    ['serve', { TRUST_INCOMING_TRACE: 'browsers' }, 'TRUST_INCOMING_TRACE'],
  ])('`%s` with %j exits 1 with one line naming %s, not echoing the value', async (command, env, variable) => {
    const { code, stdout, stderr } = await runCli([command], env);
    expect(code).toBe(1);
    expect(stdout).toBe('');
    const lines = stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(variable);
    expect(stderr).not.toContain(env[variable]);
  });
});

describe('migrate', () => {
  it('applies the schema to a fresh database, then finds nothing to do', async () => {
    const dir = tempDir();
    try {
      const env = { DATABASE_URL: `file:${join(dir.path, 'pw.db')}` };
      expect(await runCli(['migrate'], env)).toEqual({ code: 0, stdout: `applied: ${loadMigrations('sqlite').map((m) => m.name).join(', ')}\n`, stderr: '' });
      expect(await runCli(['migrate'], env)).toEqual({ code: 0, stdout: 'database is up to date\n', stderr: '' });
    } finally {
      dir.remove();
    }
  }, CLI_TIMEOUT_MS);
});

/** The `apps` commands against their own SQLite file. */
function appsCli() {
  const dir = tempDir();
  const env = { DATABASE_URL: `file:${join(dir.path, 'apps.db')}`, MAIL_FILE: join(dir.path, 'mail.md'), PUBLIC_URL: 'https://passkeys.example.com' };
  const apps = (...args: string[]) => runCli(['apps', ...args], env);
  return {
    env,
    apps,
    /** Runs an apps command that must succeed and print JSON. */
    async json(...args: string[]) {
      const result = await apps(...args);
      expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
      return JSON.parse(result.stdout);
    },
    mailFile: env.MAIL_FILE,
    remove: dir.remove,
  };
}

describe('apps', () => {
  let cli: ReturnType<typeof appsCli>;
  beforeAll(() => {
    cli = appsCli();
  });
  afterAll(() => cli.remove());

  const lockStateOf = async (keyId: string) => (await cli.json('keys', 'myapp')).find((k: { id: string }) => k.id === keyId).isLocked;

  it(
    'manages an app offline from creation to deletion',
    async () => {
      const created = await cli.json('create', 'myapp', '--admin-email', 'a@b.c');
      expect(created).toEqual({
        appId: 'myapp',
        message: expect.stringContaining('only be shown to you once'),
        apiKey1: expect.stringMatching(/^myapp:public:[0-9a-f]{32}$/),
        apiKey2: expect.stringMatching(/^myapp:public:[0-9a-f]{32}$/),
        apiSecret1: expect.stringMatching(/^myapp:secret:[0-9a-f]{32}$/),
        apiSecret2: expect.stringMatching(/^myapp:secret:[0-9a-f]{32}$/),
      });

      // The printed secret is what a service over the same database accepts.
      const store = openStore(cli.env.DATABASE_URL);
      try {
        const { apiKeys, apps } = store.repositories({ now: Date.now, outboxQuota: 1000, logger: createLogger('silent') });
        expect(await new ApiKeyAuthenticator({ keys: apiKeys, apps }).check(created.apiSecret1)).toMatchObject({ ok: true, key: { appId: 'myapp', kind: 'secret' } });
      } finally {
        await store.close();
      }

      expect(await cli.json('list')).toEqual([{ appId: 'myapp', adminEmail: 'a@b.c', plan: 'trial', createdAt: expect.any(String), frozen: false, deleteAt: null }]);

      const keys = await cli.apps('keys', 'myapp');
      expect(keys.code).toBe(0);
      const listed: { id: string; apiKey: string }[] = JSON.parse(keys.stdout);
      const maskedSecrets = [created.apiSecret1, created.apiSecret2].map((s: string) => `myapp:secret:${'*'.repeat(28)}${s.slice(-4)}`);
      expect(listed.map((k) => k.apiKey).sort()).toEqual([created.apiKey1, created.apiKey2, ...maskedSecrets].sort());
      for (const secret of [created.apiSecret1, created.apiSecret2]) expect(keys.stdout).not.toContain(secret.slice(-32, -4));

      const keyId = created.apiSecret1.slice(-4);
      expect(await cli.apps('lock', 'myapp', keyId)).toEqual({ code: 0, stdout: `key ${keyId} of myapp locked\n`, stderr: '' });
      expect(await lockStateOf(keyId)).toBe(true);
      expect(await cli.apps('unlock', 'myapp', keyId)).toEqual({ code: 0, stdout: `key ${keyId} of myapp unlocked\n`, stderr: '' });
      expect(await lockStateOf(keyId)).toBe(false);

      expect(await cli.json('delete', 'myapp')).toMatchObject({ isDeleted: true, message: "The app 'myapp' was deleted." });
      expect(await cli.json('list')).toEqual([]);
    },
    CLI_TIMEOUT_MS,
  );

  it(
    'schedules a deletion, mailing the admin the abort link, and cancels it',
    async () => {
      await cli.json('create', 'doomed', '--admin-email', 'owner@example.com');
      const scheduled = await cli.json('delete', '--schedule', 'doomed');
      expect(scheduled).toEqual({ message: expect.stringContaining("The app 'doomed' will be deleted."), isDeleted: false, keysFreezeAt: expect.any(String), deleteAt: expect.any(String), adminEmails: ['owner@example.com'] });
      expect(Date.parse(scheduled.deleteAt) - Date.parse(scheduled.keysFreezeAt)).toBe(13 * 86_400_000);
      const mail = readFileSync(cli.mailFile, 'utf8');
      expect(mail).toContain('To: owner@example.com');
      expect(mail).toContain("Subject: Your app 'doomed' is scheduled for deletion");
      expect(mail).toMatch(/^https:\/\/passkeys\.example\.com\/apps\/delete\/cancel\/doomed\?token=abort_\S+$/m);
      expect((await cli.json('list')).find((a: { appId: string }) => a.appId === 'doomed').deleteAt).toBe(scheduled.deleteAt);

      expect(await cli.json('cancel-delete', 'doomed')).toEqual({ message: "The deletion of the app 'doomed' was cancelled; its keys work again." });
      const again = await cli.apps('cancel-delete', 'doomed');
      expect({ code: again.code, stderr: again.stderr }).toEqual({ code: 1, stderr: 'error: App was not scheduled for deletion.\n' });
    },
    CLI_TIMEOUT_MS,
  );
});

describe('apps refusals', () => {
  let cli: ReturnType<typeof appsCli>;
  beforeAll(async () => {
    cli = appsCli();
    await cli.json('create', 'taken', '--admin-email', 'a@b.c');
  }, CLI_TIMEOUT_MS);
  afterAll(() => cli.remove());

  it.each([
    [['create', 'taken', '--admin-email', 'a@b.c'], /not available/],
    [['create', 'other'], /--admin-email/],
    [['create', 'x', '--admin-email', 'a@b.c'], /lowercase/],
    [['create', 'planned', '--admin-email', 'a@b.c', '--plan', 'platinum'], /plan field must be one of: trial, pro, enterprise/],
    [['lock', 'taken', 'zzzz'], /Apikey was not found/],
    [['keys', 'nosuchapp'], /App was not found/],
    [['delete', '--schedule', 'nosuchapp'], /App was not found/],
    [['cancel-delete', 'nosuchapp'], /App was not found/],
    [['frobnicate'], /unknown apps command/],
  ])(
    'exits 1 with a message for `apps %j`',
    async (args, message) => {
      const result = await cli.apps(...args);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(message);
    },
    CLI_TIMEOUT_MS,
  );
});

describe('help', () => {
  it(
    'prints the help and exits 1 without a command, starting nothing and creating nothing in the folder it ran in',
    async () => {
      const dir = tempDir();
      const port = await freePort();
      // Should it serve anyway (as it once did), it is stopped as soon as it says it listens.
      const child = spawn(process.execPath, [CLI], { cwd: dir.path, env: cleanEnv({ PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info' }) });
      child.stdout.on('data', (chunk: Buffer) => {
        if (chunk.toString().includes('passwordless service listening')) child.kill('SIGTERM');
      });
      try {
        const { code, stdout, stderr } = await outputOf(child);
        expect({ code, stdout, created: readdirSync(dir.path) }).toEqual({ code: 1, stdout: '', created: [] });
        expect(stderr).toMatch(/^missing a command \(`serve` starts the service\)\n\nUsage: passwordless-selfhost <command>\n/);
        expect(stderr).toContain('  serve                                   start the service\n');
      } finally {
        if (child.exitCode === null) child.kill('SIGKILL');
        dir.remove();
      }
    },
    CLI_TIMEOUT_MS,
  );

  it.each([['--help'], ['-h']])(
    '`doctor %s` prints the doctor\'s help and exits 0',
    async (flag) => {
      const { code, stdout, stderr } = await runCli(['doctor', flag], {});
      expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
      expect(stdout).toMatch(/^Usage: passwordless-selfhost doctor \[options\]\n/);
      for (const option of ['--url', '--rp-id', '--no-verify-email', '--recovery', '--api-url', '-h, --help']) expect(stdout).toContain(option);
    },
    CLI_TIMEOUT_MS,
  );
});

describe('serve', () => {
  it(
    'creates the database in a missing directory, answers health checks and the management API, and stops on SIGTERM',
    async () => {
      const dir = tempDir();
      const file = join(dir.path, 'not', 'yet', 'there', 'passwordless.db');
      const port = await freePort();
      const child = startCli(['serve'], {
        PORT: String(port),
        HOST: '127.0.0.1',
        DATABASE_URL: `file:${file}`,
        MANAGEMENT_KEY,
        MAIL_FILE: join(dir.path, 'mail.md'),
        LOG_LEVEL: 'info',
      });
      try {
        const url = await waitUntilListening(child);
        expect(url).toBe(`http://127.0.0.1:${port}`);
        expect(existsSync(file)).toBe(true);

        const health = await fetch(`${url}/health/http`);
        expect({ status: health.status, text: await health.text() }).toEqual({ status: 200, text: 'Healthy' });

        const created = await fetch(`${url}/api/admin/apps/served/create`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', ManagementKey: MANAGEMENT_KEY },
          body: JSON.stringify({ adminEmail: 'admin@example.com' }),
        });
        expect(created.status).toBe(200);

        child.kill('SIGTERM');
        expect(await exitOf(child)).toBe(0);
      } finally {
        if (child.exitCode === null) child.kill('SIGKILL');
        dir.remove();
      }
    },
    CLI_TIMEOUT_MS,
  );
});
