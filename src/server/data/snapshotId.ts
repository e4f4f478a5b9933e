import { DataError } from './dataError';

/**
 * A snapshot id names what a copy read, `<time>@<digest>`: when the snapshot was taken and the
 * first 16 hex digits of its database digest (every table's count and checksum). `--since` takes
 * it back, and refuses a target whose content no longer has that digest.
 */
export function formatSnapshotId(time: Date, digest: string): string {
  return `${time.toISOString()}@${digest.slice(0, 16)}`;
}

export function parseSnapshotId(text: string): { time: Date; digest: string } {
  const match = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z)@([0-9a-f]{16})$/.exec(text.trim());
  const time = match ? new Date(match[1]) : undefined;
  if (!match || !time || Number.isNaN(time.getTime())) {
    throw new DataError(`--since takes the snapshot id that the previous copy printed, such as 2026-11-25T09:45:11.141Z@3f9a1c2b4d5e6f70; '${text.slice(0, 80)}' is not one`);
  }
  return { time, digest: match[2] };
}
