import { passkeyMayStepUp } from './passkeyMayStepUp';

const HOUR = 3_600_000;
const now = Date.UTC(2026, 10, 27, 12);
const passkey = (createdAt: number, id = 'new') => ({ id, createdAt });

describe('passkeyMayStepUp', () => {
  it('takes any passkey at least minAgeSeconds old, in any session', () => {
    expect(passkeyMayStepUp(passkey(now - HOUR), { via: 'sign-in' }, 3600, now)).toBe(true);
    expect(passkeyMayStepUp(passkey(now - HOUR), { via: 'sign-up', madePasskeyId: 'first' }, 3600, now)).toBe(true);
    expect(passkeyMayStepUp(passkey(now - 2 * HOUR), undefined, 3600, now)).toBe(true);
  });

  it('refuses a younger passkey in a session it signed in, however fresh the sign-in', () => {
    expect(passkeyMayStepUp(passkey(now - HOUR + 1), { via: 'sign-in' }, 3600, now)).toBe(false);
    expect(passkeyMayStepUp(passkey(now - 60_000, 'first'), { via: 'sign-in', madePasskeyId: 'first' }, 3600, now)).toBe(false);
  });

  it('takes the passkey its sign-up made, or the one added in its recovered session, young as it is', () => {
    expect(passkeyMayStepUp(passkey(now - 10, 'first'), { via: 'sign-up', madePasskeyId: 'first' }, 3600, now)).toBe(true);
    expect(passkeyMayStepUp(passkey(now - 10, 'added'), { via: 'recovery', madePasskeyId: 'added' }, 3600, now)).toBe(true);
  });

  it('refuses another young passkey in a sign-up or recovered session', () => {
    expect(passkeyMayStepUp(passkey(now - 60_000), { via: 'sign-up', madePasskeyId: 'first' }, 3600, now)).toBe(false);
    expect(passkeyMayStepUp(passkey(now - 60_000), { via: 'recovery' }, 3600, now)).toBe(false);
  });

  it('holds a session the middleware did not open to the age rule alone', () => {
    expect(passkeyMayStepUp(passkey(now - 60_000), undefined, 3600, now)).toBe(false);
  });

  it('refuses a passkey whose creation time cannot be read', () => {
    expect(passkeyMayStepUp(passkey(Number.NaN, 'first'), { via: 'sign-up', madePasskeyId: 'first' }, 3600, now)).toBe(false);
  });
});
