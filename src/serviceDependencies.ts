/**
 * The service's own packages are optional peer dependencies: a host that only mounts the Express
 * middleware never installs Prisma, SQLite or the WebAuthn library. Running the service from such
 * an install needs them: this prints the one `npm install` command that adds them and exits,
 * before anything fails to load. Imported first by the CLI.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { serviceInstallCommand, type PackageManifest } from './serviceInstallCommand';

const PACKAGE_ROOT = join(__dirname, '..');

function resolves(name: string): boolean {
  try {
    require.resolve(name);
    return true;
  } catch {
    return false;
  }
}

const manifest = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as PackageManifest;
const command = serviceInstallCommand(manifest, PACKAGE_ROOT, process.cwd(), resolves);
if (command !== undefined) {
  process.stderr.write(`The passwordless service needs packages that are not installed here. Add them with this command, then start it again:\n\n  ${command}\n\n`);
  process.exit(1);
}
