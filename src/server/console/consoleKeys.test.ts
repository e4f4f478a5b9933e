import { parseKey } from '../../shared/apiKeys';
import { deriveConsoleKeys } from './consoleKeys';

describe('deriveConsoleKeys', () => {
  it('derives well-formed keys of the app, the same from the same seed and others from another', () => {
    const seed = Buffer.alloc(32, 7);
    const keys = deriveConsoleKeys('pwlconsole', seed);
    expect(parseKey(keys.apiKey)).toMatchObject({ appId: 'pwlconsole', kind: 'public' });
    expect(parseKey(keys.apiSecret)).toMatchObject({ appId: 'pwlconsole', kind: 'secret' });
    expect(deriveConsoleKeys('pwlconsole', Buffer.alloc(32, 7))).toEqual(keys);
    expect(deriveConsoleKeys('pwlconsole', Buffer.alloc(32, 8)).apiSecret).not.toBe(keys.apiSecret);
  });

  it('never gives both keys one id', () => {
    for (let i = 0; i < 300; i++) {
      const keys = deriveConsoleKeys('pwlconsole', Buffer.from([i & 255, i >> 8]));
      expect(keys.apiKey.slice(-4)).not.toBe(keys.apiSecret.slice(-4));
    }
  });
});
