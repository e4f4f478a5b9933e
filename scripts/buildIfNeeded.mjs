// `npm start` on a fresh clone: generate the Prisma clients and compile once, then reuse dist/
// until a source file is newer than the build.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const stamp = join(root, 'dist', 'cli.js');

function newestMtime(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestMtime(path));
    // Unit tests beside the sources are not built; plain .js sources are copied by the build.
    else if ((/\.(ts|js|css)$/.test(entry.name) && !entry.name.endsWith('.test.ts')) || entry.name.endsWith('.prisma')) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

const sourcesChanged = () => newestMtime(join(root, 'src')) > statSync(stamp).mtimeMs || newestMtime(join(root, 'prisma')) > statSync(stamp).mtimeMs;
if (!existsSync(join(root, 'src', 'server', 'store', 'generated', 'sqlite', 'client.ts'))) {
  execFileSync(process.execPath, [join(root, 'scripts', 'generatePrisma.mjs')], { stdio: 'inherit' });
}
if (!existsSync(stamp) || sourcesChanged()) {
  execFileSync(process.execPath, [join(root, 'scripts', 'build.mjs')], { cwd: root, stdio: 'inherit' });
}
