import { listDifferences, schemaDifferences, type SchemaObject } from './schemaDifferences';

const table: SchemaObject = { kind: 'table', name: 'RedeemedToken', definition: 'CREATE TABLE "RedeemedToken" (…)' };
const index: SchemaObject = { kind: 'index', name: 'RedeemedToken_expiresAt_idx', table: 'RedeemedToken', definition: 'CREATE INDEX …' };

describe('schemaDifferences', () => {
  it('finds nothing when both hold the same objects alike, in any order', () => {
    expect(schemaDifferences([index, table], [table, index])).toEqual([]);
  });

  it('names an extra trigger, view or index with its table, then changed definitions, then missing objects', () => {
    const trigger = { kind: 'trigger', name: 'replay', table: 'RedeemedToken', definition: 'CREATE TRIGGER replay …' };
    const view = { kind: 'view', name: 'everything', definition: 'CREATE VIEW …' };
    const changed = { ...table, definition: 'CREATE TABLE "RedeemedToken" (without its key)' };
    expect(schemaDifferences([changed, trigger, view], [table, index])).toEqual([
      'an extra trigger "replay" on "RedeemedToken"',
      'an extra view "everything"',
      'table "RedeemedToken" defined otherwise than the migrations define it',
      'no index "RedeemedToken_expiresAt_idx" on "RedeemedToken"',
    ]);
  });

  it('tells apart objects of one name on different tables and of different kinds', () => {
    const a = { kind: 'constraint', name: 'pkey', table: 'A', definition: 'PRIMARY KEY (id)' };
    const b = { ...a, table: 'B' };
    expect(schemaDifferences([a, b], [a])).toEqual(['an extra constraint "pkey" on "B"']);
    expect(schemaDifferences([{ ...index, kind: 'trigger' }], [index])).toEqual(['an extra trigger "RedeemedToken_expiresAt_idx" on "RedeemedToken"', 'no index "RedeemedToken_expiresAt_idx" on "RedeemedToken"']);
  });

  it('lists the first few differences on one line', () => {
    expect(listDifferences(['a', 'b'])).toBe('a; b');
    expect(listDifferences(['a', 'b', 'c', 'd'], 2)).toBe('a; b; and 2 more');
  });
});
