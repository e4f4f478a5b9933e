/**
 * The middleware is what a host loads; the service is not. Every import under src/express (and
 * the src/shared it may use) must stay inside those two folders or name a package a middleware-only
 * host actually installs: a dependency, a required peer, or a Node built-in.
 */
import { builtinModules } from 'node:module';
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { importsOf, resolveImport, sourceFiles } from '../support/sourceImports';

const ROOT = join(__dirname, '..', '..');
const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
};
const requiredPeers = Object.keys(manifest.peerDependencies).filter((name) => !manifest.peerDependenciesMeta[name]?.optional);
const installedForHosts = new Set([...Object.keys(manifest.dependencies), ...requiredPeers]);

/**
 * Optional peers the middleware may load when the host has them, each from one file that loads it
 * with `require` inside a try (and names none of its types): prom-client for the host's metrics.
 */
const OPTIONAL_LOADS: Record<string, string[]> = { 'src/express/telemetry/hostMetrics.ts': ['prom-client'] };

const packageName = (specifier: string) => (specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0]);

describe('the middleware boundary', () => {
  const files = [...sourceFiles(join(ROOT, 'src', 'express')), ...sourceFiles(join(ROOT, 'src', 'shared'))];
  const allowedDirs = [join(ROOT, 'src', 'express'), join(ROOT, 'src', 'shared')];

  it('finds the middleware sources', () => {
    expect(files.length).toBeGreaterThan(5);
  });

  it.each(files.map((f) => [relative(ROOT, f), f]))('%s imports nothing of the service and no package a host lacks', (_name, file) => {
    const bad: string[] = [];
    // Type-only imports count too: their types ship with the package.
    for (const { specifier } of importsOf(file)) {
      if (specifier.startsWith('.')) {
        const target = resolveImport(file, specifier);
        if (!allowedDirs.some((dir) => target === dir || target.startsWith(`${dir}/`))) bad.push(specifier);
      } else if (OPTIONAL_LOADS[relative(ROOT, file)]?.includes(specifier)) {
        expect(readFileSync(file, 'utf8')).toMatch(new RegExp(`try \\{[^}]*require\\('${specifier}'\\)`));
      } else if (!specifier.startsWith('node:') && !builtinModules.includes(specifier) && !installedForHosts.has(packageName(specifier))) {
        bad.push(specifier);
      }
    }
    expect(bad).toEqual([]);
  });

  it('keeps the service packages out of what a host installs', () => {
    for (const name of ['@prisma/client', 'better-sqlite3', 'pg', '@simplewebauthn/server', 'prisma']) expect(installedForHosts.has(name)).toBe(false);
  });
});
