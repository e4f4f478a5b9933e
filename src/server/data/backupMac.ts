import { createHmac, timingSafeEqual } from 'node:crypto';

/** HMAC-SHA256 of a backup's manifest text under BACKUP_MAC_KEY, hex. */
export function backupMac(key: string, manifest: string): string {
  return createHmac('sha256', key).update(manifest, 'utf8').digest('hex');
}

/** Whether `mac` is the manifest's MAC under `key`, compared in constant time. */
export function backupMacMatches(key: string, manifest: string, mac: string): boolean {
  const expected = Buffer.from(backupMac(key, manifest), 'hex');
  const given = /^[0-9a-f]{64}$/.test(mac) ? Buffer.from(mac, 'hex') : Buffer.alloc(0);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
