import vm from 'node:vm';

type Importer = (specifier: string) => Promise<Record<string, unknown>>;
let importer: Importer | undefined;

/**
 * Imports an ES module (the example host's `.mjs` files) with Node's own loader, which jest's
 * CommonJS runtime cannot: the module and what it imports are Node's, outside jest's registry.
 * Node 20 calls the loader option experimental and says so once on stderr.
 */
export function nativeImport(specifier: string): Promise<Record<string, unknown>> {
  importer ??= vm.runInThisContext('(specifier) => import(specifier)', {
    importModuleDynamically: (vm.constants as unknown as { USE_MAIN_CONTEXT_DEFAULT_LOADER: never }).USE_MAIN_CONTEXT_DEFAULT_LOADER,
  }) as Importer;
  return importer(specifier);
}
