// `npm run build`: the service and the middleware (CommonJS, tsconfig.build.json) and the browser
// module (ES modules, tsconfig.browser.json) into dist/.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
for (const project of ['tsconfig.build.json', 'tsconfig.browser.json']) {
  execFileSync(process.execPath, [tsc, '-p', project], { cwd: root, stdio: 'inherit' });
}
// The package is CommonJS; dist/browser's .js files are ES modules.
writeFileSync(join(root, 'dist', 'browser', 'package.json'), `${JSON.stringify({ type: 'module' })}\n`);
