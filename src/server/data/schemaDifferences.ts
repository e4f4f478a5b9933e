/**
 * One object of a database's schema as a comparison sees it: what it is, its name, the table it
 * belongs to (an index, trigger, constraint, rule or policy), and its definition as the database
 * prints it (SQLite's stored SQL; PostgreSQL's pg_get_*def, schema names left out).
 */
export interface SchemaObject {
  kind: string;
  name: string;
  table?: string;
  definition: string;
}

const keyOf = (o: SchemaObject) => JSON.stringify([o.kind, o.table ?? '', o.name]);
const describe = (o: SchemaObject) => `${o.kind} "${o.name}"${o.table && o.table !== o.name ? ` on "${o.table}"` : ''}`;

/**
 * How `actual` differs from `reference` (a database the same migrations made from nothing), in
 * words, extra objects first (a trigger, a view, an index the migrations did not make), then
 * changed definitions, then missing objects; empty when they hold the same objects alike.
 */
export function schemaDifferences(actual: readonly SchemaObject[], reference: readonly SchemaObject[]): string[] {
  const expected = new Map(reference.map((o) => [keyOf(o), o]));
  const found = new Map(actual.map((o) => [keyOf(o), o]));
  const extra: string[] = [];
  const changed: string[] = [];
  for (const [key, object] of found) {
    const made = expected.get(key);
    if (!made) extra.push(`an extra ${describe(object)}`);
    else if (made.definition !== object.definition) changed.push(`${describe(object)} defined otherwise than the migrations define it`);
  }
  const missing = [...expected].filter(([key]) => !found.has(key)).map(([, object]) => `no ${describe(object)}`);
  return [...extra.sort(), ...changed.sort(), ...missing.sort()];
}

/** "a; b; c; and 4 more": the first few differences, for one line of output. */
export function listDifferences(differences: readonly string[], shown = 5): string {
  return differences.slice(0, shown).join('; ') + (differences.length > shown ? `; and ${differences.length - shown} more` : '');
}
