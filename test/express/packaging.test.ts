/**
 * What a host developer gets: `npm pack`, then a fresh app outside the repo installs only that
 * tarball plus express, express-session and passport (from the npm registry, as they would), and
 * uses `passwordless-selfhost/express` with `require`, with `import`, and from TypeScript.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

jest.setTimeout(240_000);

const ROOT = join(__dirname, '..', '..');
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
const installed = (name: string) => (JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;

let work: string;
let host: string;

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
  const tarball = join(work, packed[0].filename);
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

describe('the packed middleware in a fresh host app', () => {
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
