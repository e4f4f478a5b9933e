/**
 * What a host developer gets: `npm pack`, then a fresh app outside the repo installs only that
 * tarball plus express, express-session and passport (from the npm registry, as they would), and
 * uses `passwordless-selfhost/express` with `require`, with `import`, and from TypeScript. And what
 * an operator gets: `npx passwordless-selfhost serve` there names the one `npm install` command
 * that adds the service's packages, and once it has run, serves from the tarball.
 *
 * Installs prefer npm's cache (`--prefer-offline`) and pin the versions this repository runs, so
 * a warm cache needs no network; without a reachable registry the suite is skipped, loudly.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isCi } from '../browser/support/chromium';
import { outputOf } from '../support/childProcess';
import { freeLoopbackPort } from '../support/net';
import { childEnv, waitUntilServing } from '../support/serviceProcess';
import { MANAGEMENT_KEY } from '../support/testService';

jest.setTimeout(240_000);

const ROOT = join(__dirname, '..', '..');
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
const installed = (name: string) => (JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;

let work: string;
let host: string;
let tarball: string;

/** Why the npm registry cannot be reached, or undefined when it answers `npm ping`. */
function registryUnreachable(): string | undefined {
  const ping = spawnSync('npm', ['ping', '--fetch-retries=0', '--fetch-timeout=15000'], { encoding: 'utf8', timeout: 30_000 });
  if (ping.status === 0) return undefined;
  const lines = (ping.stderr || ping.error?.message || `npm ping exited with ${ping.status}`).split('\n');
  return lines.find((line) => /reason:/.test(line)) ?? lines.find((line) => /error/i.test(line)) ?? 'npm ping failed';
}

/** `describe`, or outside CI a loud skip when the registry is unreachable (under CI=true the suite runs and fails). */
function packagingSuite(): jest.Describe {
  const unreachable = isCi() ? undefined : registryUnreachable();
  if (unreachable === undefined) return describe;
  console.warn(`*** the npm registry is unreachable (${unreachable.trim()}): the PACKAGING tests (npm pack, install, npx serve) are SKIPPED ***`);
  return describe.skip;
}
const suite = packagingSuite();

function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): string {
  return execFileSync(command, args, { cwd, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 * 1024 * 1024 });
}

/** Every installed package (nested ones too) with its manifest. */
function installedPackages(nodeModules: string): { name: string; manifest: Record<string, unknown>; dir: string }[] {
  const found: { name: string; manifest: Record<string, unknown>; dir: string }[] = [];
  const visit = (dir: string) => {
    if (!existsSync(dir)) return;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (!entry.isDirectory() || entry.name.startsWith('.')) continue;
      const path = join(dir, entry.name);
      if (entry.name.startsWith('@')) {
        visit(path);
        continue;
      }
      const manifestPath = join(path, 'package.json');
      if (existsSync(manifestPath)) {
        const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as Record<string, unknown>;
        found.push({ name: String(manifest.name), manifest, dir: path });
      }
      visit(join(path, 'node_modules'));
    }
  };
  visit(nodeModules);
  return found;
}

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'pwl-pack-'));
  host = join(work, 'host');
  const packed = JSON.parse(run('npm', ['pack', '--json', '--pack-destination', work], ROOT)) as { filename: string }[];
  tarball = join(work, packed[0].filename);
  execFileSync('mkdir', ['-p', host]);
  writeFileSync(join(host, 'package.json'), JSON.stringify({ name: 'host-app', version: '1.0.0', private: true }));
  run(
    'npm',
    [
      'install',
      '--no-audit',
      '--no-fund',
      '--prefer-offline',
      '--foreground-scripts',
      tarball,
      `express@${installed('express')}`,
      `express-session@${installed('express-session')}`,
      `passport@${installed('passport')}`,
    ],
    host,
  );
});

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

suite('the packed middleware in a fresh host app', () => {
  it('installs no Prisma, no database driver and nothing with an install script or a native build', () => {
    const packages = installedPackages(join(host, 'node_modules'));
    const names = packages.map((p) => p.name);
    expect(names).toContain('passwordless-selfhost');
    for (const unwanted of ['prisma', '@prisma/client', 'better-sqlite3', 'pg', '@simplewebauthn/server', 'pino', 'typescript']) expect(names).not.toContain(unwanted);
    const withScripts = packages.filter((p) => {
      const scripts = (p.manifest.scripts ?? {}) as Record<string, string>;
      return ['preinstall', 'install', 'postinstall'].some((s) => s in scripts) || existsSync(join(p.dir, 'binding.gyp'));
    });
    expect(withScripts.map((p) => p.name)).toEqual([]);
  });

  it("runs the README's snippet as written (Origins set), and without Origins refuses to start, naming it", () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const snippet = /## Passkeys in your Express app\s+```js\n([\s\S]+?)```/.exec(readme)![1];
    expect(snippet).toContain("origins: 'http://localhost:3000'");
    // Only the port differs: the snippet asks the one it listens on for a signed-out user's passkeys.
    const probe = `const server = app.listen(0, '127.0.0.1', async () => {
      const res = await fetch(\`http://127.0.0.1:\${server.address().port}/passwordless-passkeys\`);
      console.log(JSON.stringify({ status: res.status, type: res.headers.get('content-type'), body: await res.json() }));
      server.close();
    });`;
    const script = (text: string) => text.replace('app.listen(3000);', probe);
    const env = { ...process.env, SESSION_SECRET: 'a'.repeat(32), Passwordless__ApiKey: `host:public:${'a'.repeat(32)}`, Passwordless__ApiSecret: `host:secret:${'b'.repeat(32)}` };
    writeFileSync(join(host, 'readme.js'), script(snippet));
    expect(JSON.parse(run(process.execPath, ['readme.js'], host, env))).toEqual({ status: 401, type: 'application/problem+json', body: expect.objectContaining({ errorCode: 'not_signed_in' }) });

    writeFileSync(join(host, 'readme-no-origins.js'), script(snippet.replace(/^\s*origins: .*\n/m, '')));
    let failure: { stderr?: string } | undefined;
    try {
      run(process.execPath, ['readme-no-origins.js'], host, env);
    } catch (error) {
      failure = error as { stderr?: string };
    }
    expect(failure?.stderr).toMatch(/PasswordlessSettingsError: Passwordless__Origins is required with verifyEmail/);
  });

  it('works with require', () => {
    const out = run(
      process.execPath,
      [
        '-e',
        `const m = require('passwordless-selfhost/express');
         const router = m.passwordless({ users: new m.InMemoryUserStore(), env: { Passwordless__ApiKey: 'host:public:${'a'.repeat(32)}', Passwordless__ApiSecret: 'host:secret:${'b'.repeat(32)}', Passwordless__Origins: 'https://host.example' } });
         console.log(JSON.stringify({ router: typeof router, settings: router.settings.appId, client: router.client instanceof m.PasswordlessClient, error: typeof m.PasswordlessApiError }));`,
      ],
      host,
    );
    expect(JSON.parse(out)).toEqual({ router: 'function', settings: 'host', client: true, error: 'function' });
  });

  it('works with import', () => {
    const out = run(
      process.execPath,
      ['--input-type=module', '-e', `import { passwordless, PasswordlessStrategy, resolveSettings } from 'passwordless-selfhost/express'; console.log([typeof passwordless, typeof PasswordlessStrategy, typeof resolveSettings].join(','));`],
      host,
    );
    expect(out.trim()).toBe('function,function,function');
  });

  it('ships the browser module as an ES module with types, and serves it without a bundler', () => {
    const out = run(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import { createPasskeys, PasskeyError } from 'passwordless-selfhost/browser';
         import { createRequire } from 'node:module';
         const { passwordless, InMemoryUserStore } = createRequire(process.cwd() + '/')('passwordless-selfhost/express');
         const router = passwordless({ users: new InMemoryUserStore(), serveBrowserModule: true, env: { Passwordless__ApiKey: 'host:public:${'a'.repeat(32)}', Passwordless__ApiSecret: 'host:secret:${'b'.repeat(32)}', Passwordless__Origins: 'https://host.example' } });
         console.log([typeof createPasskeys, typeof PasskeyError, typeof router].join(','));`,
      ],
      host,
    );
    expect(out.trim()).toBe('function,function,function');
    const types = readFileSync(join(host, 'node_modules', 'passwordless-selfhost', 'dist', 'browser', 'index.d.ts'), 'utf8');
    expect(types).toContain('export declare function createPasskeys');
  });

  it('ships its MIT licence and is publishable', () => {
    const installedManifest = JSON.parse(readFileSync(join(host, 'node_modules', 'passwordless-selfhost', 'package.json'), 'utf8')) as { license?: string; private?: boolean };
    expect(installedManifest).toMatchObject({ license: 'MIT' });
    expect(installedManifest.private).toBeUndefined();
    expect(readFileSync(join(host, 'node_modules', 'passwordless-selfhost', 'LICENSE'), 'utf8')).toMatch(/^MIT License\n\nCopyright \(c\) 2026 the passwordless-selfhost contributors\n/);
  });

  it('does not expose the service or other internals as import paths', () => {
    expect(() => run(process.execPath, ['-e', "require('passwordless-selfhost/dist/server/server')"], host)).toThrow(/ERR_PACKAGE_PATH_NOT_EXPORTED/);
  });

  it.each([
    ['node16 (an ESM and a CommonJS file)', { module: 'node16', moduleResolution: 'node16' }, ['host.mts', 'host.cts']],
    ['node10', { module: 'commonjs', moduleResolution: 'node10' }, ['host.ts']],
    ['bundler', { module: 'esnext', moduleResolution: 'bundler' }, ['host.ts']],
  ])('ships types that a TypeScript host resolves with moduleResolution %s', (_name, options, files) => {
    const source = `import { passwordless, InMemoryUserStore, PasswordlessClient, type PasswordlessOptions, type VerifiedUser } from 'passwordless-selfhost/express';
const options: PasswordlessOptions = { users: new InMemoryUserStore(), apiUrl: 'http://localhost:7001', register: { expiration: '00:05:00' } };
const router = passwordless(options);
const client: PasswordlessClient = router.client;
export async function check(token: string): Promise<string> {
  const verified: VerifiedUser = await client.verifyToken(token);
  return verified.userId;
}
// @ts-expect-error a misspelt option is a type error
passwordless({ users: new InMemoryUserStore(), apiUrll: 'x' });
`;
    for (const file of files) writeFileSync(join(host, file), source);
    writeFileSync(
      join(host, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { ...options, target: 'es2022', strict: true, noEmit: true, skipLibCheck: true, types: ['node'], typeRoots: [join(ROOT, 'node_modules', '@types')], ignoreDeprecations: '6.0' },
        files,
      }),
    );
    let diagnostics = '';
    try {
      run(process.execPath, [TSC, '-p', 'tsconfig.json'], host);
    } catch (error) {
      diagnostics = String((error as { stdout?: string }).stdout) || String(error);
    }
    expect(diagnostics).toBe('');
    for (const file of files) rmSync(join(host, file));
  });
});

suite('the packed service, started with npx', () => {
  const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    name: string;
    version: string;
    peerDependencies: Record<string, string>;
    peerDependenciesMeta: Record<string, { optional?: boolean }>;
  };
  // OpenTelemetry's packages are optional too, but the service asks for them only when tracing is on.
  // express-session (the console's sessions) is not asked for: a host of the middleware has it already.
  const servicePackages = Object.keys(manifest.peerDependenciesMeta).filter(
    (name) => manifest.peerDependenciesMeta[name].optional && !name.startsWith('@opentelemetry/') && name !== 'express-session',
  );
  /** What `npm install` is asked for: each service package with its peer range, quoted where a shell would read the range. */
  const specs = servicePackages.map((name) => {
    const spec = `${name}@${manifest.peerDependencies[name]}`;
    return /^[\w@/.~=-]+$/.test(spec) ? spec : `"${spec}"`;
  });
  /** A user's shell: no npm variables of this test run, no test switches. */
  const userEnv = (extra: Record<string, string>) => {
    const env = childEnv(extra);
    for (const key of Object.keys(env)) if (/^npm_/i.test(key)) delete env[key];
    return env;
  };

  /** Runs a start that must refuse: its exit code, and its stderr without the command line. */
  async function refusedStart(command: string, args: string[], cwd: string) {
    const result = await outputOf(spawn(command, args, { cwd, env: userEnv({ DATABASE_URL: `file:${join(work, 'refused.db')}` }) }));
    const lines = result.stderr.split('\n');
    return { ...result, command: lines.map((line) => line.trim()).filter((line) => line.startsWith('npm install ')) };
  }

  it("in a folder with only the middleware installed, prints the one npm install command that adds the service's packages, and exits 1 without a stack trace", async () => {
    const result = await refusedStart('npx', ['passwordless-selfhost', 'serve'], host);
    expect(result.code).toBe(1);
    expect(result.command).toEqual([`npm install ${specs.join(' ')}`]);
    expect(result.stderr).not.toMatch(/^\s+at /m);
    expect(result.stdout).toBe('');
    expect(existsSync(join(work, 'refused.db'))).toBe(false);
  });

  it('run from another folder than the one it is installed in (as npx runs its cached copy in a fresh folder), installs the service itself with them', async () => {
    const fresh = join(work, 'fresh');
    mkdirSync(fresh);
    const result = await refusedStart(process.execPath, [join(host, 'node_modules', 'passwordless-selfhost', 'dist', 'cli.js'), 'serve'], fresh);
    expect(result.code).toBe(1);
    expect(result.command).toEqual([`npm install ${manifest.name}@${manifest.version} ${specs.join(' ')}`]);
  });

  it('serves once that command has run: health 200, a token verified once and refused the second time (the SQLite writer thread ships), stopped by SIGTERM', async () => {
    const service = join(work, 'service');
    cpSync(host, service, { recursive: true, verbatimSymlinks: true });
    const [command] = (await refusedStart('npx', ['passwordless-selfhost', 'serve'], service)).command;
    const named = command.replace(/^npm install /, '').split(' ').map((spec) => spec.replace(/^"|"$/g, '').replace(/(.)@.*$/, '$1'));
    expect(named).toEqual(servicePackages);
    // The packages the command names, at the versions this repository runs (a deterministic install from npm's cache).
    run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', ...named.map((name) => `${name}@${installed(name)}`)], service, userEnv({}));

    const port = await freeLoopbackPort();
    const url = `http://127.0.0.1:${port}`;
    // In a process group of its own, stopped as a terminal's Ctrl-C or a service manager stops it: a
    // signal to the group. (npm forwards a signal to its shell only, which then dies without passing it on.)
    const child = spawn('npx', ['passwordless-selfhost', 'serve'], {
      cwd: service,
      detached: true,
      env: userEnv({ DATABASE_URL: `file:${join(service, 'data', 'passwordless.db')}`, PORT: String(port), MANAGEMENT_KEY, MAIL_FILE: join(service, 'mail.md'), LOG_LEVEL: 'info' }),
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    // Closed once every process of the group holding its output (npx, its shell, the service) has exited.
    const closed = new Promise((resolve) => child.once('close', resolve));
    const stopGroup = async () => {
      process.kill(-child.pid!, 'SIGTERM');
      const deadline = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), 15_000);
      await closed;
      clearTimeout(deadline);
    };
    try {
      await waitUntilServing(`${url}/health/http`, child, () => output, 60_000);
      expect((await fetch(`${url}/health/storage`)).status).toBe(200);
      const created = await fetch(`${url}/admin/apps/packed/create`, { method: 'POST', headers: { ManagementKey: MANAGEMENT_KEY, 'content-type': 'application/json' }, body: JSON.stringify({ adminEmail: 'admin@example.com' }) });
      expect(created.status).toBe(200);
      const { apiSecret1 } = (await created.json()) as { apiSecret1: string };
      const privateApi = (path: string, body: unknown) => fetch(`${url}${path}`, { method: 'POST', headers: { ApiSecret: apiSecret1, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const { token } = (await (await privateApi('/signin/generate-token', { userId: 'u1' })).json()) as { token: string };
      const verified = await privateApi('/signin/verify', { token });
      expect(verified.status).toBe(200);
      expect(await verified.json()).toMatchObject({ success: true, userId: 'u1' });
      const again = await privateApi('/signin/verify', { token });
      expect([again.status, ((await again.json()) as { errorCode?: string }).errorCode]).toEqual([400, 'token_already_used']);
    } finally {
      await stopGroup();
    }
    const stopped = output
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { msg?: string; clean?: boolean })
      .find((entry) => entry.msg === 'stopped');
    expect(stopped).toMatchObject({ clean: true });
    await expect(fetch(`${url}/health/http`)).rejects.toThrow();
  }, 600_000);
});
