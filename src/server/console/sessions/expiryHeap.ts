/**
 * Keys ordered by when they expire, soonest first: a binary min-heap with each key's position
 * kept, so that setting, moving or removing one key is O(log n) and the soonest is O(1). The
 * memory store uses it to drop expired sessions and to evict the one closest to expiry without
 * scanning them all.
 */
export class ExpiryHeap {
  private readonly keys: string[] = [];
  private readonly times: number[] = [];
  private readonly positions = new Map<string, number>();

  get size(): number {
    return this.keys.length;
  }

  /** Adds `key`, or moves it to its new time (earlier or later). */
  set(key: string, at: number): void {
    const position = this.positions.get(key);
    if (position === undefined) {
      this.keys.push(key);
      this.times.push(at);
      this.positions.set(key, this.keys.length - 1);
      this.up(this.keys.length - 1);
      return;
    }
    const before = this.times[position];
    this.times[position] = at;
    if (at < before) this.up(position);
    else this.down(position);
  }

  /** Removes `key`; false when it was not there. */
  delete(key: string): boolean {
    const position = this.positions.get(key);
    if (position === undefined) return false;
    const last = this.keys.length - 1;
    this.positions.delete(key);
    if (position !== last) {
      this.place(position, this.keys[last], this.times[last]);
      this.keys.pop();
      this.times.pop();
      this.up(position);
      this.down(position);
    } else {
      this.keys.pop();
      this.times.pop();
    }
    return true;
  }

  /** The key that expires soonest, and when; undefined when empty. */
  peek(): { key: string; at: number } | undefined {
    return this.keys.length > 0 ? { key: this.keys[0], at: this.times[0] } : undefined;
  }

  private place(position: number, key: string, at: number): void {
    this.keys[position] = key;
    this.times[position] = at;
    this.positions.set(key, position);
  }

  private swap(a: number, b: number): void {
    const [keyA, atA] = [this.keys[a], this.times[a]];
    this.place(a, this.keys[b], this.times[b]);
    this.place(b, keyA, atA);
  }

  private up(position: number): void {
    while (position > 0) {
      const parent = (position - 1) >> 1;
      if (this.times[parent] <= this.times[position]) return;
      this.swap(parent, position);
      position = parent;
    }
  }

  private down(position: number): void {
    const size = this.keys.length;
    for (;;) {
      const left = 2 * position + 1;
      const right = left + 1;
      let smallest = position;
      if (left < size && this.times[left] < this.times[smallest]) smallest = left;
      if (right < size && this.times[right] < this.times[smallest]) smallest = right;
      if (smallest === position) return;
      this.swap(smallest, position);
      position = smallest;
    }
  }
}
