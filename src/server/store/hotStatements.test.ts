import { HOT_STATEMENTS, positionalStatement } from './hotStatements';

describe('positionalStatement', () => {
  it('numbers each named parameter by its first use and reuses the number', () => {
    expect(positionalStatement('SELECT 1 WHERE "a" = @tenant AND "b" > @after AND "c" = @tenant LIMIT @limit')).toEqual({
      text: 'SELECT 1 WHERE "a" = $1 AND "b" > $2 AND "c" = $1 LIMIT $3',
      names: ['tenant', 'after', 'limit'],
    });
  });

  it('leaves a statement without parameters as it is', () => {
    expect(positionalStatement('SELECT 1')).toEqual({ text: 'SELECT 1', names: [] });
  });

  it('names the app in every statement of the hot path: reads and changes are scoped by it, rows are written for it', () => {
    for (const [name, { sql }] of Object.entries(HOT_STATEMENTS)) {
      // The event log's batch holds several apps' events, and a change's webhook deliveries are its
      // app's: each row carries its own app, written into "tenant".
      const batchOfRows = /json_each\(@(events|deliveries)\)/.test(sql) && /value ->> 'tenant'/.test(sql);
      // An INSERT … SELECT FROM "App" WHERE "id" = @tenant writes a row only for the app it names.
      const fromTheApp = /SELECT "id", .* FROM "App" WHERE "id" = @tenant/s.test(sql);
      const scoped = sql.startsWith('INSERT') ? /VALUES \(.*@tenant/s.test(sql) || fromTheApp || batchOfRows : /"(tenant|id)" = @tenant/.test(sql);
      expect({ name, scoped }).toEqual({ name, scoped: true });
    }
  });

  it('writes each event of a batch for the app the event names', () => {
    const { sql, postgres } = HOT_STATEMENTS.insertEvents as { sql: string; postgres: string };
    expect(sql).toMatch(/^INSERT INTO "Event" \("id", "tenant"/);
    expect(sql).toMatch(/SELECT value ->> 'id', value ->> 'tenant'/);
    expect(postgres).toMatch(/SELECT "id", "tenant"/);
  });
});
