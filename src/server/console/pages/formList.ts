/** A field a form may send several times (checkboxes of one name): always a list; anything odd goes through for the schema to refuse. */
export function formList(value: unknown): unknown {
  if (value === undefined) return [];
  return typeof value === 'string' ? [value] : value;
}
