import { describeManifestCheck } from './backupManifest';
import type { CopyResult, RowChanges } from './copyData';

/** The table whose rows carry the token keys; they travel as stored (see `formatCopyReport`). */
const TOKEN_KEY_TABLE = 'TokenKey';

const plural = (n: number, word: string) => `${n.toLocaleString('en-US')} ${word}${n === 1 ? '' : 's'}`;
const total = (changes: RowChanges[]) => changes.reduce((sum, c) => sum + c.inserted + c.updated + c.deleted, 0);

/** "RedeemedToken: 2 new, 4 gone; Credential: 3 changed" */
function changesByTable(result: CopyResult, pick: (t: CopyResult['tables'][number]) => RowChanges, words: [string, string, string]): string {
  return result.tables
    .filter((t) => total([pick(t)]) > 0)
    .map((t) => {
      const c = pick(t);
      const parts = [c.inserted && `${c.inserted} ${words[0]}`, c.updated && `${c.updated} ${words[1]}`, c.deleted && `${c.deleted} ${words[2]}`].filter(Boolean);
      return `${t.table}: ${parts.join(', ')}`;
    })
    .join('; ');
}

/**
 * What `data copy` prints: both databases, the snapshot, one line per table (rows and checksum on
 * each side), what was written, what the source gained after the snapshot and how to copy it, and
 * what the token keys need. `keyEncryption`: TOKEN_KEY_ENCRYPTION_KEY is set.
 */
export function formatCopyReport(result: CopyResult, command: string, keyEncryption: boolean): string {
  const lines: string[] = [];
  lines.push(`source    ${result.source} (schema ${result.schema})`);
  if (result.backup) lines.push(`          a backup file: ${describeManifestCheck(result.backup)}`);
  lines.push(`target    ${result.target}${result.applied.length ? ` (schema created: ${plural(result.applied.length, 'migration')} applied)` : ''}`);
  lines.push(`snapshot  ${result.snapshotId}`);
  lines.push('');
  const width = Math.max(5, ...result.tables.map((t) => t.table.length));
  lines.push(`${'table'.padEnd(width)}  ${'source rows'.padStart(11)}  ${'target rows'.padStart(11)}  checksum`);
  for (const t of result.tables) {
    const same = t.sourceRows === t.targetRows && t.sourceChecksum === t.targetChecksum;
    const checksum = same ? `${t.sourceChecksum.slice(0, 16)}  equal` : `${t.sourceChecksum.slice(0, 16)} in the source, ${t.targetChecksum.slice(0, 16)} in the target  DIFFERENT`;
    lines.push(`${t.table.padEnd(width)}  ${String(t.sourceRows).padStart(11)}  ${String(t.targetRows).padStart(11)}  ${checksum}`);
  }
  lines.push('');
  const rows = result.tables.reduce((sum, t) => sum + t.sourceRows, 0);
  const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  if (result.mode === 'copy') {
    const rate = result.copyMs > 0 ? `, ${Math.round((rows * 1000) / result.copyMs).toLocaleString('en-US')} rows/s` : '';
    lines.push(`copied ${plural(rows, 'row')} in ${seconds(result.copyMs)}${rate}; read back and compared in ${seconds(result.checkMs)}`);
  } else {
    const written = result.tables.map((t) => t.written);
    const detail = changesByTable(result, (t) => t.written, ['inserted', 'updated', 'deleted']);
    lines.push(`brought up to date in ${seconds(result.copyMs)}: ${plural(total(written), 'row')} written${detail ? ` (${detail})` : ''}; read back and compared in ${seconds(result.checkMs)}`);
  }
  const keys = result.tables.find((t) => t.table === TOKEN_KEY_TABLE);
  if (keys) {
    lines.push(`token keys: ${plural(keys.sourceRows, 'key')} copied as stored, so tokens issued before the copy verify against the target.`);
    if (keyEncryption) {
      lines.push('  They are stored wrapped with TOKEN_KEY_ENCRYPTION_KEY: every service on the target needs the same TOKEN_KEY_ENCRYPTION_KEY.');
    }
  }
  if (!result.equal) {
    const differing = result.tables.filter((t) => t.sourceRows !== t.targetRows || t.sourceChecksum !== t.targetChecksum).map((t) => t.table);
    lines.push(`THE TARGET DIFFERS FROM THE SNAPSHOT in ${differing.join(', ')}: do not switch to it.`);
    return `${lines.join('\n')}\n`;
  }
  const newer = total(result.tables.map((t) => t.newer));
  if (newer === 0) {
    lines.push('written on the source after the snapshot: nothing; the target equals the source.');
  } else {
    const detail = changesByTable(result, (t) => t.newer, ['new', 'changed', 'gone']);
    lines.push(`written on the source after the snapshot: ${plural(newer, 'row')} (${detail}).`);
    lines.push(`  To copy them (after stopping writes, for the last time): ${command} --since ${result.snapshotId}`);
  }
  return `${lines.join('\n')}\n`;
}
