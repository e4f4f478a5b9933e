import { existsSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';

export interface PackageManifest {
  name: string;
  version: string;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

/**
 * Whether `npx` started in `cwd` runs the copy at `packageRoot`: the first `node_modules/<name>` up
 * from `cwd` is that copy. (Not `require.resolve` from `cwd`: a package resolves its own name to itself.)
 */
function isInstalledFor(cwd: string, name: string, packageRoot: string): boolean {
  for (let dir = cwd; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return realpathSync(candidate) === realpathSync(packageRoot);
    if (dirname(dir) === dir) return false;
  }
}

/** `name@range`, in double quotes when the range holds more than a shell passes on as it is (`^` is cmd's escape). */
const installSpec = (name: string, range: string | undefined): string => {
  const spec = range === undefined ? name : `${name}@${range}`;
  return /^[\w@/.~=-]+$/.test(spec) ? spec : `"${spec}"`;
};

/**
 * The one `npm install` command that adds the optional peers `resolves` does not find, or undefined
 * when none is missing. Run from a folder where the package at `packageRoot` is not installed (`npx`
 * in a fresh folder runs a copy from npm's cache, which never sees packages installed in the
 * folder), it installs the package itself there too, so that the next `npx` runs that copy.
 */
export function serviceInstallCommand(manifest: PackageManifest, packageRoot: string, cwd: string, resolves: (name: string) => boolean): string | undefined {
  // OpenTelemetry's packages are loaded only when tracing is asked for (startTracing says then what is missing).
  const optional = Object.entries(manifest.peerDependenciesMeta ?? {})
    .filter(([name, meta]) => meta.optional && !name.startsWith('@opentelemetry/'))
    .map(([name]) => name);
  const missing = optional.filter((name) => !resolves(name));
  if (missing.length === 0) return undefined;
  const self = isInstalledFor(cwd, manifest.name, packageRoot) ? [] : [`${manifest.name}@${manifest.version}`];
  return ['npm install', ...self, ...missing.map((name) => installSpec(name, manifest.peerDependencies?.[name]))].join(' ');
}
