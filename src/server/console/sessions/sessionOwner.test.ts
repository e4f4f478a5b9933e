import { sessionOwner } from './sessionOwner';

describe('sessionOwner', () => {
  it("is the middleware's record of the signed-in user", () => {
    expect(sessionOwner({ passwordlessSession: { userId: 'u-1', createdAt: 1, lastSeenAt: 1, device: 'Linux', browser: 'Firefox' } })).toBe('u-1');
  });

  it('is undefined for a session nobody signed in to, or a record that is not a string id', () => {
    for (const session of [{}, null, undefined, 'text', { passwordlessSession: null }, { passwordlessSession: { userId: 42 } }, { passwordlessSession: { userId: '' } }]) {
      expect(sessionOwner(session)).toBeUndefined();
    }
  });
});
