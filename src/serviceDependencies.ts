/**
 * The service's own packages are optional peer dependencies: a host that only mounts the Express
 * middleware never installs Prisma, SQLite or the WebAuthn library. Running the service from such
 * an install needs them: this prints the one `npm install` command that adds them and exits,
 * before anything fails to load. Imported first by the CLI.
 */
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';

interface Manifest {
  name: string;
  version: string;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

const PACKAGE_ROOT = join(__dirname, '..');

function resolves(name: string): boolean {
  try {
    require.resolve(name);
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether `npx` started in `cwd` runs this copy: the first `node_modules/<name>` up from `cwd` is
 * this package. (Not `require.resolve` from `cwd`: a package resolves its own name to itself.)
 */
function isInstalledFor(cwd: string, name: string): boolean {
  for (let dir = cwd; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return realpathSync(candidate) === realpathSync(PACKAGE_ROOT);
    if (dirname(dir) === dir) return false;
  }
}

/** `name@range`, in double quotes when the range holds more than a shell passes on as it is (`^` is cmd's escape). */
const installSpec = (name: string, range: string | undefined): string => {
  const spec = range === undefined ? name : `${name}@${range}`;
  return /^[\w@/.~=-]+$/.test(spec) ? spec : `"${spec}"`;
};

/**
 * The command that lets the service start, or undefined when nothing is missing. Run from a folder
 * where this package is not installed (`npx` in a fresh folder runs a copy from npm's cache, which
 * never sees packages installed in the folder), it installs the service itself there too, so that
 * the next `npx passwordless-selfhost` runs that copy.
 */
function installCommand(manifest: Manifest): string | undefined {
  const optional = Object.entries(manifest.peerDependenciesMeta ?? {}).filter(([, meta]) => meta.optional).map(([name]) => name);
  const missing = optional.filter((name) => !resolves(name));
  if (missing.length === 0) return undefined;
  const self = isInstalledFor(process.cwd(), manifest.name) ? [] : [`${manifest.name}@${manifest.version}`];
  return ['npm install', ...self, ...missing.map((name) => installSpec(name, manifest.peerDependencies?.[name]))].join(' ');
}

const manifest = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as Manifest;
const command = installCommand(manifest);
if (command !== undefined) {
  process.stderr.write(`The passwordless service needs packages that are not installed here. Add them with this command, then start it again:\n\n  ${command}\n\n`);
  process.exit(1);
}
