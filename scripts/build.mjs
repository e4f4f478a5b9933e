// `npm run build`: the service and the middleware (CommonJS, tsconfig.build.json) and the browser
// module (ES modules, tsconfig.browser.json) into dist/, plus the sources written in plain
// JavaScript (files a worker thread loads with Node's own require) and their hand-written types.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const src = join(root, 'src');
const dist = join(root, 'dist');
const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
for (const project of ['tsconfig.build.json', 'tsconfig.browser.json']) {
  execFileSync(process.execPath, [tsc, '-p', project], { cwd: root, stdio: 'inherit' });
}
// The package is CommonJS; dist/browser's .js files are ES modules.
writeFileSync(join(dist, 'browser', 'package.json'), `${JSON.stringify({ type: 'module' })}\n`);

/** The .js, .d.ts and .css files (the console's assets) under `dir` that tsc does not emit (the generated Prisma clients are TypeScript). */
function plainSources(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'generated' ? [] : plainSources(path);
    return entry.name.endsWith('.js') || entry.name.endsWith('.d.ts') || entry.name.endsWith('.css') ? [path] : [];
  });
}
for (const file of plainSources(src)) {
  const target = join(dist, relative(src, file));
  mkdirSync(dirname(target), { recursive: true });
  copyFileSync(file, target);
}
