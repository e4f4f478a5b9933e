import { chmodSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensurePrivateDirectory, ensurePrivateFile, looseFiles } from './privateFiles';

describe('private files', () => {
  let root: string;
  let umask: number;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'private-files-'));
    umask = process.umask(0o022);
  });
  afterEach(() => {
    process.umask(umask);
    rmSync(root, { recursive: true, force: true });
  });
  const modeOf = (path: string) => (statSync(path).mode & 0o777).toString(8);

  it('creates directories 0700 and files 0600 under umask 022', () => {
    const dir = join(root, 'a', 'b');
    ensurePrivateFile(join(dir, 'x.db'), dir);
    expect(modeOf(join(root, 'a'))).toBe('700');
    expect(modeOf(dir)).toBe('700');
    expect(modeOf(join(dir, 'x.db'))).toBe('600');
  });

  it('leaves existing files and directories as they are', () => {
    const file = join(root, 'old.db');
    writeFileSync(file, 'data');
    chmodSync(file, 0o644);
    ensurePrivateFile(file, root);
    ensurePrivateDirectory(root);
    expect(modeOf(file)).toBe('644');
    expect(statSync(file).size).toBe(4);
  });

  it('names the existing files others may read or write, and skips missing ones', () => {
    const [open, shared, tight] = ['open', 'shared', 'tight'].map((name) => join(root, name));
    for (const [file, mode] of [
      [open, 0o644],
      [shared, 0o660],
      [tight, 0o600],
    ] as const) {
      writeFileSync(file, '');
      chmodSync(file, mode);
    }
    expect(looseFiles([open, shared, tight, join(root, 'missing')])).toEqual([
      { path: open, mode: '644' },
      { path: shared, mode: '660' },
    ]);
  });
});
