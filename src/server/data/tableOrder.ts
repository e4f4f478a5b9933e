/**
 * The tables in an order where every table comes after the tables its foreign keys point to, so
 * rows can be inserted with the keys checked as they go (PostgreSQL's are not deferrable); ties
 * keep alphabetical order. A cycle has no such order: it is reported with the tables it holds.
 */
export function parentsFirst<T extends { name: string; parents: string[] }>(tables: T[]): T[] {
  const byName = new Map(tables.map((t) => [t.name, t]));
  const ordered: T[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (table: T, path: string[]) => {
    const seen = state.get(table.name);
    if (seen === 'done') return;
    if (seen === 'visiting') throw new Error(`the foreign keys of ${[...path.slice(path.indexOf(table.name)), table.name].join(' -> ')} form a cycle`);
    state.set(table.name, 'visiting');
    for (const parent of [...table.parents].sort()) {
      const target = byName.get(parent);
      if (target && parent !== table.name) visit(target, [...path, table.name]);
    }
    state.set(table.name, 'done');
    ordered.push(table);
  };
  for (const table of [...tables].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) visit(table, []);
  return ordered;
}
