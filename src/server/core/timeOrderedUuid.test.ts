import { timeOrderedUuid } from './timeOrderedUuid';

const CANONICAL_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('time-ordered token ids', () => {
  it('are canonical version-7 GUIDs (the .NET client reads tokenId as a Guid) carrying their time', () => {
    const at = Date.UTC(2026, 10, 23, 12, 0, 0, 123);
    const id = timeOrderedUuid(at);
    expect(id).toMatch(CANONICAL_V7);
    expect(parseInt(id.slice(0, 8) + id.slice(9, 13), 16)).toBe(at);
  });

  it('sort in the order they were made, and never repeat within a millisecond', () => {
    const at = Date.now();
    const sameMs = Array.from({ length: 1000 }, () => timeOrderedUuid(at));
    expect(new Set(sameMs).size).toBe(1000);
    // In the order they were made, within the millisecond too (the event log lists by (time, id)).
    expect([...sameMs].sort()).toEqual(sameMs);
    const later = [at, at + 1, at + 1000, at + 86_400_000].map((t) => timeOrderedUuid(t));
    expect([...later].sort()).toEqual(later);
  });

  it('stays canonical for times outside what 48 bits hold', () => {
    expect(timeOrderedUuid(-5)).toMatch(CANONICAL_V7);
    expect(timeOrderedUuid(2 ** 50)).toMatch(CANONICAL_V7);
  });
});
