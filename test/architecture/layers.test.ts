/**
 * Requests flow one way through src/server, and each folder imports only from the folders below
 * it (docs/architecture.md). This table is the rule; a new import that runs back up fails here.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { importsOf, resolveImport, sourceFiles } from '../support/sourceImports';

const ROOT = join(__dirname, '..', '..');
const SRC = join(ROOT, 'src');

/**
 * Which layer may import which. A layer always imports itself. `types` lists layers a layer may
 * name only in `import type` (nothing of them is loaded): the edge knows the services' shapes,
 * never their code.
 */
const LAYERS: Record<string, { imports: string[]; types?: string[] }> = {
  shared: { imports: [] },
  'server/core': { imports: ['shared'] },
  'server/webauthn': { imports: ['server/core', 'shared'] },
  'server/store': { imports: ['server/core', 'shared'] },
  'server/mail': { imports: ['server/core', 'shared'] },
  'server/redis': { imports: ['server/core', 'shared'] },
  'server/metrics': { imports: ['server/core', 'shared'], types: ['server/store'] },
  // Services reach the database only through the repositories the store hands them, and know the
  // store by its types alone (see the test below for which of its files).
  'server/services': { imports: ['server/core', 'server/webauthn', 'server/mail', 'server/redis', 'shared'], types: ['server/store'] },
  // Operator tooling beside the service (data copy, backup, restore): it works on the databases
  // through the store's connections and migrations, never through services or HTTP.
  'server/data': { imports: ['server/store', 'server/core', 'shared'] },
  // The Express edge: routing/ and middleware/ use each other.
  'server/http': { imports: ['server/core', 'server/redis', 'shared'], types: ['server/services'] },
  'server/routes': { imports: ['server/http', 'server/services', 'server/core', 'shared'], types: ['server/metrics'] },
  'server/openapi': { imports: ['server/routes', 'server/http/routing', 'server/core', 'shared'], types: ['server/services'] },
  // The operator console: a host app of our own middleware (src/express) that calls the services in
  // process; nothing below it imports it.
  'server/console': { imports: ['express', 'server/services', 'server/core', 'server/redis', 'shared'] },
  // The console's charts: pure functions from figures to SVG markup, whatever page calls them.
  'server/console/charts': { imports: ['server/core', 'shared'] },
  // The composition roots: they start, wire and stop everything, so they may import anything.
  server: { imports: ['*'] },
  '.': { imports: ['*'] },
  express: { imports: ['shared'] },
  // The browser module runs in pages: nothing of this repository, only the published client.
  browser: { imports: [] },
};

/** The folder of a path under src, as the table writes it (`server/http/routing`). */
const folderOf = (path: string) => relative(SRC, dirname(path)).split(sep).join('/') || '.';

/** Whether `folder` is `layer` or inside it. */
const within = (folder: string, layer: string) => layer === '*' || folder === layer || folder.startsWith(`${layer}/`);

/** The most specific layer of the table a path belongs to (`src/server/http/routing/chain.ts` is `server/http`). */
function layerOf(path: string): string {
  const folder = folderOf(path);
  const layers = Object.keys(LAYERS).filter((layer) => layer !== '.' && within(folder, layer));
  return layers.sort((a, b) => b.length - a.length)[0] ?? '.';
}

/** Whether an import into `folder` is allowed by the list of layers. */
const reaches = (allowed: string[], folder: string) => allowed.some((layer) => within(folder, layer));

function upwardImports(file: string): string[] {
  const from = layerOf(file);
  const rule = LAYERS[from];
  return importsOf(file)
    .filter(({ specifier }) => specifier.startsWith('.'))
    .filter(({ specifier, typeOnly }) => {
      const to = folderOf(resolveImport(file, specifier));
      if (within(to, from)) return false;
      return !reaches(rule.imports, to) && !(typeOnly && reaches(rule.types ?? [], to));
    })
    .map(({ specifier }) => `${relative(ROOT, file)} -> ${specifier}`);
}

/** The store's files that services may name in `import type`: the repositories and the `Store` that hands them out. */
const STORE_FACES = [join(SRC, 'server/store/index.ts'), join(SRC, 'server/store/repositories/index.ts')];

/** A service's imports of the store other than the types of its faces: Prisma, `Db`, the hot path and the statement drivers stay below. */
function storeImportsBeyondRepositories(file: string): string[] {
  if (layerOf(file) !== 'server/services') return [];
  return importsOf(file)
    .filter(({ specifier }) => specifier.startsWith('.'))
    .filter(({ specifier, typeOnly }) => {
      const target = resolveImport(file, specifier);
      if (!within(folderOf(target), 'server/store')) return false;
      return !typeOnly || !STORE_FACES.includes(target);
    })
    .map(({ specifier }) => `${relative(ROOT, file)} -> ${specifier}`);
}

describe('the layers of src/server', () => {
  const files = sourceFiles(SRC);

  it('finds every layer of the table in the tree', () => {
    const found = new Set(files.map(layerOf));
    for (const layer of Object.keys(LAYERS)) expect({ layer, found: found.has(layer) }).toEqual({ layer, found: true });
  });

  it('has no import that runs back up', () => {
    expect(files.flatMap(upwardImports)).toEqual([]);
  });

  it('lets services see the store only through the types of its repositories', () => {
    expect(files.flatMap(storeImportsBeyondRepositories)).toEqual([]);
    // The rule itself: a service naming the SQL layer's types, or loading anything of the store, is caught.
    expect(STORE_FACES.includes(resolveImport(join(SRC, 'server/services/users/credentials.ts'), '../../store/sql/queries'))).toBe(false);
    expect(STORE_FACES.includes(resolveImport(join(SRC, 'server/services/users/credentials.ts'), '../../store/sql/driver'))).toBe(false);
  });

  it('lets no service name Prisma, `Db` or the SQL layer through the store’s faces, nor reach a store’s connections', () => {
    // The faces export these types for the store's own callers (server.ts, the CLI, operator tooling).
    const below = /\b(Db|SqlDriver|Queries|PrismaClient)\b|\bstore\.(db|sql|queries)\b|@prisma\//;
    const named = files.filter((file) => layerOf(file) === 'server/services').flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .filter((line) => below.test(line))
        .map((line) => `${relative(ROOT, file)}: ${line.trim()}`),
    );
    expect(named).toEqual([]);
    expect(below.test("import type { SqlDriver } from '../../store';")).toBe(true);
    expect(reaches(LAYERS['server/services'].imports, 'server/store')).toBe(false);
  });

  it('catches an upward import (the rule itself is checked)', () => {
    expect(reaches(LAYERS['server/core'].imports, 'server/http')).toBe(false);
    expect(reaches(LAYERS['server/routes'].imports, 'server/http/routing')).toBe(true);
    expect(reaches(LAYERS['server/http'].imports, 'server/services')).toBe(false);
    expect(reaches(LAYERS['server/http'].types ?? [], 'server/services')).toBe(true);
  });
});
