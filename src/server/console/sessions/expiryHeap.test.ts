import { ExpiryHeap } from './expiryHeap';

/** Empties the heap soonest first, as the store prunes it. */
function drain(heap: ExpiryHeap): Array<[string, number]> {
  const out: Array<[string, number]> = [];
  for (let top = heap.peek(); top; top = heap.peek()) {
    out.push([top.key, top.at]);
    heap.delete(top.key);
  }
  return out;
}

describe('ExpiryHeap', () => {
  it('gives the soonest key first, and nothing when empty', () => {
    const heap = new ExpiryHeap();
    expect(heap.peek()).toBeUndefined();
    heap.set('b', 20);
    heap.set('a', 10);
    heap.set('c', 30);
    expect(heap.peek()).toEqual({ key: 'a', at: 10 });
    expect(heap.size).toBe(3);
  });

  it('moves a key later (a touch) and earlier', () => {
    const heap = new ExpiryHeap();
    heap.set('a', 10);
    heap.set('b', 20);
    heap.set('c', 30);
    heap.set('a', 40);
    expect(heap.peek()).toEqual({ key: 'b', at: 20 });
    heap.set('c', 5);
    expect(drain(heap)).toEqual([['c', 5], ['b', 20], ['a', 40]]);
  });

  it('removes a key from anywhere, once', () => {
    const heap = new ExpiryHeap();
    for (const [key, at] of [['a', 1], ['b', 2], ['c', 3], ['d', 4], ['e', 5]] as const) heap.set(key, at);
    expect(heap.delete('c')).toBe(true);
    expect(heap.delete('c')).toBe(false);
    expect(heap.delete('a')).toBe(true);
    expect(drain(heap)).toEqual([['b', 2], ['d', 4], ['e', 5]]);
    expect(heap.size).toBe(0);
  });

  it('keeps order through a long random mix of sets and deletes (checked against a sort)', () => {
    // A fixed linear congruential sequence: the same run every time.
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    const heap = new ExpiryHeap();
    const model = new Map<string, number>();
    for (let i = 0; i < 5000; i++) {
      const key = `k${next() % 300}`;
      if (next() % 4 === 0) {
        expect(heap.delete(key)).toBe(model.delete(key));
      } else {
        const at = next() % 1000;
        heap.set(key, at);
        model.set(key, at);
      }
      expect(heap.size).toBe(model.size);
      if (model.size > 0) expect(heap.peek()!.at).toBe(Math.min(...model.values()));
    }
    const drained = drain(heap);
    expect(drained.map(([, at]) => at)).toEqual([...model.values()].sort((a, b) => a - b));
    expect(new Map(drained)).toEqual(model);
  });
});
