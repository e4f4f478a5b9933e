import { entriesAfter } from './entriesAfter';

const entry = (name: string, aaGuid: string) => ({ name, aaGuid, extra: `${name}/${aaGuid}` });
// Sorted by name, then AAGUID, as the metadata catalog lists them; two share a name.
const sorted = [entry('Alpha', 'c'), entry('Beta', 'a'), entry('Beta', 'b'), entry('Gamma', '0'), entry('Zeta', '1')];

describe('entriesAfter', () => {
  it('pages through every entry once, in order, and ends with a null key', () => {
    const seen: string[] = [];
    let after: { name: string; aaGuid: string } | undefined;
    for (let pages = 0; pages < 10; pages++) {
      const page = entriesAfter(sorted, after, 2);
      seen.push(...page.values.map((e) => e.extra));
      if (page.next === null) break;
      const last = page.values[page.values.length - 1];
      expect(page.next).toBe(last.aaGuid);
      after = last;
    }
    expect(seen).toEqual(sorted.map((e) => e.extra));
  });

  it('continues after the key, between two entries of one name', () => {
    expect(entriesAfter(sorted, { name: 'Beta', aaGuid: 'a' }, 2).values.map((e) => e.extra)).toEqual(['Beta/b', 'Gamma/0']);
  });

  it('stays put when the key is gone from the list (the metadata changed between pages)', () => {
    expect(entriesAfter(sorted, { name: 'Delta', aaGuid: 'x' }, 10).values.map((e) => e.name)).toEqual(['Gamma', 'Zeta']);
  });

  it('answers no next key when the page holds exactly the rest', () => {
    expect(entriesAfter(sorted, { name: 'Beta', aaGuid: 'b' }, 2)).toMatchObject({ next: null });
    expect(entriesAfter([], undefined, 2)).toEqual({ values: [], next: null });
  });
});
