import { DataError } from './dataError';
import { formatSnapshotId, parseSnapshotId } from './snapshotId';

describe('snapshot ids', () => {
  it('carry the snapshot time and the start of the digest, and read back', () => {
    const id = formatSnapshotId(new Date('2026-11-25T09:45:11.141Z'), '3f9a1c2b4d5e6f70aabbccdd');
    expect(id).toBe('2026-11-25T09:45:11.141Z@3f9a1c2b4d5e6f70');
    expect(parseSnapshotId(id)).toEqual({ time: new Date('2026-11-25T09:45:11.141Z'), digest: '3f9a1c2b4d5e6f70' });
  });

  it('refuse a bare time or anything else, saying what is expected', () => {
    for (const text of ['2026-11-25T09:45:11.141Z', 'yesterday', '2026-11-25T09:45:11.141Z@XYZ', '']) {
      expect(() => parseSnapshotId(text)).toThrow(DataError);
    }
    expect(() => parseSnapshotId('yesterday')).toThrow(/the snapshot id that the previous copy printed/);
  });
});
