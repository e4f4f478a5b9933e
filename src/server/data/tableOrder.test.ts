import { parentsFirst } from './tableOrder';

const names = (tables: { name: string }[]) => tables.map((t) => t.name);

describe('parentsFirst', () => {
  it('puts every table after the tables it refers to', () => {
    const tables = [
      { name: 'Delivery', parents: ['Webhook', 'App'] },
      { name: 'Webhook', parents: ['App'] },
      { name: 'App', parents: [] },
      { name: 'Alias', parents: ['App'] },
    ];
    expect(names(parentsFirst(tables))).toEqual(['App', 'Alias', 'Webhook', 'Delivery']);
  });

  it('ignores a table that refers to itself and a parent outside the list', () => {
    expect(names(parentsFirst([{ name: 'Tree', parents: ['Tree', 'Elsewhere'] }]))).toEqual(['Tree']);
  });

  it('names the tables of a cycle', () => {
    expect(() => parentsFirst([{ name: 'A', parents: ['B'] }, { name: 'B', parents: ['A'] }])).toThrow('the foreign keys of A -> B -> A form a cycle');
  });
});
