/** A quoted table name after FROM, INTO, UPDATE or JOIN. */
const TABLE = /\b(?:FROM|INTO|UPDATE|JOIN)\s+"([A-Za-z_][A-Za-z0-9_]*)"/i;

/** The text with every parenthesised part (subqueries, column lists) taken out, innermost first. */
function outerLevel(sql: string): string {
  let text = sql;
  for (let previous = ''; previous !== text; ) {
    previous = text;
    text = text.replace(/\([^()]*\)/g, ' ');
  }
  return text;
}

/**
 * The table a statement works on, for its span's `db.collection.name`: the first one its outer
 * level names (a SELECT's FROM, not that of a subquery in its column list), else the first one at
 * all, else undefined. Read from the statement's text, never from its values.
 */
export function statementTable(sql: string): string | undefined {
  return (TABLE.exec(outerLevel(sql)) ?? TABLE.exec(sql))?.[1];
}
