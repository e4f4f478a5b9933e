import { decoyPrfSalt, newPrfSalt, prfSaltInput } from './prfSalt';

describe('PRF salts', () => {
  it('are 32 random bytes as hex, a new one each time', () => {
    const [a, b] = [newPrfSalt(), newPrfSalt()];
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(a).not.toBe(b);
  });

  it('go to the browser as the same bytes in base64url', () => {
    const salt = newPrfSalt();
    expect(Buffer.from(prfSaltInput(salt), 'base64url').toString('hex')).toBe(salt);
  });

  it("are derived for a decoy from the app's secret and the decoy's id: stable, distinct, shaped like real ones", () => {
    const secret = Buffer.alloc(32, 1);
    expect(decoyPrfSalt(secret, 'id-1')).toBe(decoyPrfSalt(secret, 'id-1'));
    expect(decoyPrfSalt(secret, 'id-1')).not.toBe(decoyPrfSalt(secret, 'id-2'));
    expect(decoyPrfSalt(secret, 'id-1')).not.toBe(decoyPrfSalt(Buffer.alloc(32, 2), 'id-1'));
    expect(decoyPrfSalt(secret, 'id-1')).toMatch(/^[0-9a-f]{64}$/);
  });
});
