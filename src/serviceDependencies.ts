/**
 * The service's own packages are optional peer dependencies: a host that only mounts the Express
 * middleware never installs Prisma, SQLite or the WebAuthn library. Running the service from such
 * an install needs them; this says which are missing, in one line, before anything fails to load.
 * Imported first by the CLI.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

function missingServicePackages(): string[] {
  const manifest = JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')) as {
    peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  };
  return Object.keys(manifest.peerDependenciesMeta ?? {}).filter((name) => {
    try {
      require.resolve(name);
      return false;
    } catch {
      return true;
    }
  });
}

const missing = missingServicePackages();
if (missing.length > 0) {
  process.stderr.write(`The passwordless service needs these packages, which are not installed: ${missing.join(' ')}\nInstall them with: npm install ${missing.join(' ')}\n`);
  process.exit(1);
}
