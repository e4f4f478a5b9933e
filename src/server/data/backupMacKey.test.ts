import { ConfigError } from '../core/config';
import { backupMacKeyFrom } from './backupMacKey';

describe('BACKUP_MAC_KEY', () => {
  it('is unset when missing or empty', () => {
    expect(backupMacKeyFrom({})).toBeUndefined();
    expect(backupMacKeyFrom({ BACKUP_MAC_KEY: '' })).toBeUndefined();
  });

  it('is taken as given from 32 characters on', () => {
    expect(backupMacKeyFrom({ BACKUP_MAC_KEY: 'k'.repeat(32) })).toBe('k'.repeat(32));
  });

  it('refuses a shorter key with a ConfigError naming the variable, not the value', () => {
    const read = () => backupMacKeyFrom({ BACKUP_MAC_KEY: 'hunter2-is-short' });
    expect(read).toThrow(ConfigError);
    expect(read).toThrow(/^Invalid configuration: BACKUP_MAC_KEY must be at least 32 characters long/);
    expect(read).not.toThrow(/hunter2/);
  });
});
