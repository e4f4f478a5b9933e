import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serviceInstallCommand, type PackageManifest } from './serviceInstallCommand';

const manifest: PackageManifest = {
  name: 'pkg',
  version: '1.2.3',
  peerDependencies: { express: '^4.21.0 || ^5.0.0', pg: '^8.23.1', pino: '10.4.0', '@prisma/client': '^7.10.0' },
  peerDependenciesMeta: { pg: { optional: true }, pino: { optional: true }, '@prisma/client': { optional: true } },
};

describe('serviceInstallCommand', () => {
  let dir: string;
  /** A folder with `pkg` installed in its node_modules; returns the folder and the package's root. */
  const appWithPackage = (name: string) => {
    const app = join(dir, name);
    const root = join(app, 'node_modules', 'pkg');
    mkdirSync(root, { recursive: true });
    writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'pkg', version: '1.2.3' }));
    return { app, root };
  };
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'pwl-install-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('is undefined when every optional peer resolves (required peers are npm\'s own business)', () => {
    const { app, root } = appWithPackage('app');
    expect(serviceInstallCommand(manifest, root, app, (name) => name !== 'express')).toBeUndefined();
  });

  it('leaves out OpenTelemetry’s packages: the service runs without them until tracing is asked for', () => {
    const { app, root } = appWithPackage('app');
    const traced: PackageManifest = {
      ...manifest,
      peerDependencies: { ...manifest.peerDependencies, '@opentelemetry/sdk-node': '^0.223.0' },
      peerDependenciesMeta: { ...manifest.peerDependenciesMeta, '@opentelemetry/sdk-node': { optional: true } },
    };
    expect(serviceInstallCommand(traced, root, app, (name) => !name.startsWith('@opentelemetry/'))).toBeUndefined();
  });

  it('names only the missing optional peers, with their ranges, quoted where a shell would read them', () => {
    const { app, root } = appWithPackage('app');
    expect(serviceInstallCommand(manifest, root, app, (name) => name === 'pino')).toBe('npm install "pg@^8.23.1" "@prisma/client@^7.10.0"');
    expect(serviceInstallCommand(manifest, root, app, (name) => name !== 'pino')).toBe('npm install pino@10.4.0');
  });

  it('from a subfolder of the app it is installed in, leaves the package itself out', () => {
    const { app, root } = appWithPackage('app');
    const sub = join(app, 'config');
    mkdirSync(sub);
    expect(serviceInstallCommand(manifest, root, sub, () => false)).toBe('npm install "pg@^8.23.1" pino@10.4.0 "@prisma/client@^7.10.0"');
  });

  it('through a symlinked install (npm link), still knows it is installed there', () => {
    const { root } = appWithPackage('real');
    const linked = join(dir, 'linked');
    mkdirSync(join(linked, 'node_modules'), { recursive: true });
    symlinkSync(root, join(linked, 'node_modules', 'pkg'));
    expect(serviceInstallCommand(manifest, root, linked, (name) => name !== 'pino')).toBe('npm install pino@10.4.0');
  });

  it('run from a folder without it (npx runs a copy from its cache), or with another copy, installs the package itself too', () => {
    const cached = appWithPackage('npx-cache');
    const fresh = join(dir, 'fresh');
    mkdirSync(fresh);
    expect(serviceInstallCommand(manifest, cached.root, fresh, (name) => name !== 'pino')).toBe('npm install pkg@1.2.3 pino@10.4.0');
    const other = appWithPackage('other');
    expect(serviceInstallCommand(manifest, cached.root, other.app, (name) => name !== 'pino')).toBe('npm install pkg@1.2.3 pino@10.4.0');
  });
});
