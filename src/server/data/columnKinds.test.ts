import { agreedKind, postgresColumnKind, sqliteColumnKind } from './columnKinds';

describe('column kinds', () => {
  it('reads the types Prisma declares on SQLite, in any case and with precision', () => {
    expect(['TEXT', 'INTEGER', 'BIGINT', 'BOOLEAN', 'DATETIME', 'REAL', 'DECIMAL(65,30)', 'BLOB', 'jsonb'].map(sqliteColumnKind)).toEqual([
      'text',
      'int',
      'bigint',
      'boolean',
      'datetime',
      'float',
      'decimal',
      'bytes',
      'json',
    ]);
  });

  it('reads the types Prisma declares on PostgreSQL', () => {
    expect(['text', 'int4', 'int8', 'bool', 'timestamp', 'timestamptz', 'float8', 'numeric', 'bytea', 'jsonb'].map(postgresColumnKind)).toEqual([
      'text',
      'int',
      'bigint',
      'boolean',
      'datetime',
      'datetime',
      'float',
      'decimal',
      'bytes',
      'json',
    ]);
  });

  it('knows nothing it cannot copy faithfully', () => {
    expect(sqliteColumnKind('GEOMETRY')).toBeUndefined();
    expect(postgresColumnKind('_text')).toBeUndefined();
    expect(postgresColumnKind('interval')).toBeUndefined();
  });

  it('agrees on equal kinds, and on text holding JSON; nothing else', () => {
    expect(agreedKind('datetime', 'datetime')).toBe('datetime');
    expect(agreedKind('text', 'json')).toBe('json');
    expect(agreedKind('json', 'text')).toBe('json');
    expect(agreedKind('int', 'bigint')).toBeUndefined();
    expect(agreedKind('text', 'datetime')).toBeUndefined();
  });
});
