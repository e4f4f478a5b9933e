import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/** The TypeScript sources under `dir`, tests left out. */
export function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'generated' ? [] : sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

export interface ImportOf {
  specifier: string;
  /** `import type` / `export type`: erased at compile time, nothing of the target is loaded. */
  typeOnly: boolean;
}

/** Static imports, re-exports, side-effect imports, `require()` and `import()` of a source file. */
export function importsOf(file: string): ImportOf[] {
  const source = readFileSync(file, 'utf8');
  const found: ImportOf[] = [];
  const pattern =
    /(?:^|\n)\s*(import|export)(\s+type)?\b[^'"]*?from\s*['"]([^'"]+)['"]|(?:^|\n)\s*import\s*['"]([^'"]+)['"]|(?:require|import)\(\s*['"]([^'"]+)['"]\s*\)/g;
  for (const match of source.matchAll(pattern)) {
    found.push({ specifier: match[3] ?? match[4] ?? match[5], typeOnly: match[2] !== undefined });
  }
  return found;
}

/** The file a relative specifier of `file` loads: `x.ts`, or `x/index.ts` for a folder. */
export function resolveImport(file: string, specifier: string): string {
  const target = resolve(dirname(file), specifier);
  return existsSync(target) && statSync(target).isDirectory() ? join(target, 'index.ts') : `${target}.ts`;
}
