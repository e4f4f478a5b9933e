import { sessionExpiresAt } from './sessionExpiresAt';

describe('sessionExpiresAt', () => {
  const now = Date.UTC(2026, 10, 1);

  it('is idleMs after the write when the cookie has no expiry (a browser-session cookie)', () => {
    expect(sessionExpiresAt({ cookie: { expires: null } }, now, 60_000)).toBe(now + 60_000);
    expect(sessionExpiresAt({}, now, 60_000)).toBe(now + 60_000);
  });

  it("is the cookie's expiry when that comes sooner, as a Date or as the ISO string a store reads back", () => {
    expect(sessionExpiresAt({ cookie: { expires: new Date(now + 5_000) } }, now, 60_000)).toBe(now + 5_000);
    expect(sessionExpiresAt({ cookie: { expires: new Date(now + 5_000).toISOString() } }, now, 60_000)).toBe(now + 5_000);
  });

  it("is idleMs after the write when the cookie's expiry is later", () => {
    expect(sessionExpiresAt({ cookie: { expires: new Date(now + 3_600_000) } }, now, 60_000)).toBe(now + 60_000);
  });

  it('is in the past for a cookie that has already expired', () => {
    expect(sessionExpiresAt({ cookie: { expires: new Date(now - 1) } }, now, 60_000)).toBe(now - 1);
  });

  it('ignores an expiry that is not a date', () => {
    expect(sessionExpiresAt({ cookie: { expires: 'tomorrow-ish' } }, now, 60_000)).toBe(now + 60_000);
  });
});
