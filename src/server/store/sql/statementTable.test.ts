import { STATEMENTS, statementSql, type StatementName } from './statements';
import { statementTable } from './statementTable';

describe('statementTable', () => {
  it('names the table of the outer statement, not of a subquery', () => {
    expect(statementTable(`SELECT "maxUsers", (SELECT "userCount" FROM "AppCounter" WHERE "tenant" = @tenant) AS "userCount" FROM "App" WHERE "id" = @tenant`)).toBe('App');
    expect(statementTable(`INSERT INTO "Event" ("id") SELECT value ->> 'id' FROM json_each(@events)`)).toBe('Event');
    expect(statementTable(`UPDATE "Credential" SET "nickname" = @nickname WHERE "tenant" = @tenant`)).toBe('Credential');
    expect(statementTable(`DELETE FROM "User" WHERE "tenant" = @tenant`)).toBe('User');
  });

  it('falls back to a subquery’s table when the outer level names none', () => {
    expect(statementTable(`SELECT "a" FROM (SELECT COUNT(*) FROM "WebhookDelivery") AS "counts"`)).toBe('WebhookDelivery');
    expect(statementTable('SELECT 1')).toBeUndefined();
  });

  it('finds a table for every statement of the SQL layer, on both databases', () => {
    const names = Object.keys(STATEMENTS) as StatementName[];
    for (const provider of ['sqlite', 'postgresql'] as const) {
      expect(names.filter((name) => statementTable(statementSql(name, provider)) === undefined)).toEqual([]);
    }
  });
});
