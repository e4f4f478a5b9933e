import { pairCatalogs, type TableSchema } from './catalog';
import { DataError } from './dataError';

const app: TableSchema = { name: 'App', columns: [{ name: 'id', kind: 'text', sqlType: 'TEXT' }], primaryKey: ['id'], parents: [] };
const key = (kind: 'datetime' | 'text' = 'datetime', sqlType = 'DATETIME'): TableSchema => ({
  name: 'Key',
  columns: [
    { name: 'createdAt', kind, sqlType },
    { name: 'id', kind: 'text', sqlType: 'TEXT' },
    { name: 'tenant', kind: 'text', sqlType: 'TEXT' },
  ],
  primaryKey: ['tenant', 'id'],
  parents: ['App'],
});

describe('pairCatalogs', () => {
  it('pairs equal schemas parents first, each side keeping its own SQL types', () => {
    const pg = { ...key(), columns: key().columns.map((c) => ({ ...c, sqlType: c.kind === 'datetime' ? 'timestamp' : 'text' })) };
    const paired = pairCatalogs([key(), app], [pg, { ...app, columns: [{ name: 'id', kind: 'text', sqlType: 'text' }] }], 'copy');
    expect(paired.source.map((t) => t.name)).toEqual(['App', 'Key']);
    expect(paired.target[1].columns[0]).toEqual({ name: 'createdAt', kind: 'datetime', sqlType: 'timestamp' });
  });

  it('agrees on JSON where one side keeps it as text', () => {
    const json = { ...app, columns: [{ name: 'id', kind: 'json' as const, sqlType: 'jsonb' }] };
    expect(pairCatalogs([app], [json], 'copy').source[0].columns[0].kind).toBe('json');
  });

  it('refuses missing tables, other columns, kinds and keys, naming each', () => {
    const other = { ...key(), primaryKey: ['id'] };
    const attempt = () => pairCatalogs([app, key()], [other, { name: 'Extra', columns: [], primaryKey: [], parents: [] }], 'copy');
    expect(attempt).toThrow(DataError);
    expect(attempt).toThrow('copy: the two schemas differ: table Extra is only in the target; table App is only in the source; table Key has primary key (tenant, id) in the source and (id) in the target');
    expect(() => pairCatalogs([key()], [key('text', 'TEXT')], 'copy')).toThrow('column Key.createdAt is datetime in the source and text in the target');
  });
});
