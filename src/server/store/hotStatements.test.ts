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
      const scoped = sql.startsWith('INSERT') ? /VALUES \(.*@tenant/s.test(sql) : /"(tenant|id)" = @tenant/.test(sql);
      expect({ name, scoped }).toEqual({ name, scoped: true });
    }
  });
});
