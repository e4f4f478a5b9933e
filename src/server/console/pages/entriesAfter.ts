/** What a list sorted by name, then AAGUID, is paged by. */
export interface NamedEntry {
  name: string;
  aaGuid: string;
}

/**
 * One page of entries sorted by (name, aaGuid), from just after `after` (the last entry of the page
 * before, by its key, so that a page stays put when entries before it come or go), and the key to
 * ask for the next page with (the last entry's AAGUID), or null at the end.
 */
export function entriesAfter<T extends NamedEntry>(sorted: readonly T[], after: NamedEntry | undefined, limit: number): { values: T[]; next: string | null } {
  const rest = after === undefined ? sorted : sorted.filter((entry) => entry.name > after.name || (entry.name === after.name && entry.aaGuid > after.aaGuid));
  const values = rest.slice(0, limit);
  return { values, next: rest.length > limit ? values[values.length - 1].aaGuid : null };
}
