import { Tombstones } from './endedSessions';

describe('Tombstones', () => {
  it('holds an ended sid for its lifetime, then forgets it', () => {
    let now = 1_000;
    const ended = new Tombstones(() => now);
    ended.add('a', 500);
    expect(ended.has('a')).toBe(true);
    expect(ended.has('b')).toBe(false);
    now += 499;
    expect(ended.has('a')).toBe(true);
    now += 1;
    expect(ended.has('a')).toBe(false);
    expect(ended.size).toBe(0);
  });

  it('drops expired ones as new ones come, and the oldest past its bound', () => {
    let now = 0;
    const ended = new Tombstones(() => now, 3);
    ended.add('old', 10);
    now = 20;
    ended.add('x', 100);
    expect(ended.size).toBe(1);
    ended.add('y', 100);
    ended.add('z', 100);
    ended.add('w', 100);
    expect(ended.size).toBe(3);
    expect(['x', 'y', 'z', 'w'].map((sid) => ended.has(sid))).toEqual([false, true, true, true]);
  });

  it('ending a sid again moves its end on', () => {
    let now = 0;
    const ended = new Tombstones(() => now);
    ended.add('a', 10);
    now = 5;
    ended.add('a', 10);
    now = 12;
    expect(ended.has('a')).toBe(true);
  });
});
