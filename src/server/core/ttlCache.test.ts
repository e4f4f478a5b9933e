import { TtlCache } from './ttlCache';

function cacheAt(start: number, maxEntries = 3, ttlMs = 1000) {
  const clock = { now: start };
  const cache = new TtlCache<string, number>({ ttlMs, maxEntries, now: () => clock.now });
  return { cache, clock };
}

describe('TtlCache', () => {
  it('serves a value until its lifetime is over, then forgets it', () => {
    const { cache, clock } = cacheAt(10_000);
    cache.set('a', 1);
    clock.now += 999;
    expect(cache.get('a')).toBe(1);
    clock.now += 1;
    expect(cache.get('a')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('keeps an entry with an infinite lifetime until it is evicted', () => {
    const { cache, clock } = cacheAt(0, 2, Infinity);
    cache.set('a', 1);
    clock.now += 10 ** 12;
    expect(cache.get('a')).toBe(1);
  });

  it('never holds more than maxEntries, evicting the oldest first', () => {
    const { cache } = cacheAt(0);
    for (const [i, key] of ['a', 'b', 'c', 'd'].entries()) cache.set(key, i);
    expect(cache.size).toBe(3);
    expect([cache.get('a'), cache.get('b'), cache.get('d')]).toEqual([undefined, 1, 3]);
  });

  it('counts a re-set key as the newest', () => {
    const { cache } = cacheAt(0);
    cache.set('a', 1);
    cache.set('b', 2);
    cache.set('c', 3);
    cache.set('a', 10);
    cache.set('d', 4);
    expect([cache.get('a'), cache.get('b')]).toEqual([10, undefined]);
  });

  it('restarts the lifetime of a re-set key', () => {
    const { cache, clock } = cacheAt(0);
    cache.set('a', 1);
    clock.now = 900;
    cache.set('a', 2);
    clock.now = 1500;
    expect(cache.get('a')).toBe(2);
  });

  it('deletes one key, every key whose value matches, or everything', () => {
    const { cache } = cacheAt(0, 10);
    for (const [i, key] of ['a', 'b', 'c', 'd'].entries()) cache.set(key, i);
    cache.delete('a');
    cache.deleteWhere((value) => value % 2 === 1);
    expect([cache.get('a'), cache.get('b'), cache.get('c'), cache.get('d')]).toEqual([undefined, undefined, 2, undefined]);
    cache.clear();
    expect(cache.size).toBe(0);
  });

  it('refuses a cap below one entry', () => {
    expect(() => new TtlCache({ ttlMs: 1, maxEntries: 0 })).toThrow(RangeError);
  });
});
