import { passkeyMayStepUp } from './passkeyMayStepUp';

const HOUR = 3_600_000;
const now = Date.UTC(2026, 10, 27, 12);
const passkey = (createdAt: number, id = 'new') => ({ id, createdAt });

describe('passkeyMayStepUp', () => {
  it('takes a passkey that existed before the session, however new', () => {
    expect(passkeyMayStepUp(passkey(now - 60_000), { provenAt: now - 30_000 }, 3600, now)).toBe(true);
  });

  it('takes the passkey that opened the session, even one its sign-up made a moment after the proof', () => {
    expect(passkeyMayStepUp(passkey(now - 10, 'first'), { provenAt: now - 20, credentialId: 'first' }, 3600, now)).toBe(true);
  });

  it('refuses a passkey made during the session until it is old enough', () => {
    expect(passkeyMayStepUp(passkey(now - 60_000), { provenAt: now - HOUR, credentialId: 'first' }, 3600, now)).toBe(false);
    expect(passkeyMayStepUp(passkey(now - HOUR + 1), { provenAt: now - 2 * HOUR }, 3600, now)).toBe(false);
    expect(passkeyMayStepUp(passkey(now - HOUR), { provenAt: now - 2 * HOUR }, 3600, now)).toBe(true);
  });

  it('holds a session the middleware did not open to the age rule alone', () => {
    expect(passkeyMayStepUp(passkey(now - 60_000), undefined, 3600, now)).toBe(false);
    expect(passkeyMayStepUp(passkey(now - 2 * HOUR), undefined, 3600, now)).toBe(true);
  });

  it('refuses a passkey whose creation time cannot be read', () => {
    expect(passkeyMayStepUp(passkey(Number.NaN), { provenAt: now }, 3600, now)).toBe(false);
  });
});
