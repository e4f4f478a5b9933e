import { randomBytes } from 'node:crypto';
import { ChallengeStore, expectedUserTag, isExpectedUser } from './challenges';

describe('the expected-user tag of a named sign-in', () => {
  const secret = randomBytes(32);

  it('matches the user it was made for, and no other user, session or secret', () => {
    const tag = expectedUserTag(secret, 'sid-1', 'alice');
    expect(isExpectedUser(secret, 'sid-1', tag, 'alice')).toBe(true);
    expect(isExpectedUser(secret, 'sid-1', tag, 'bob')).toBe(false);
    expect(isExpectedUser(secret, 'sid-2', tag, 'alice')).toBe(false);
    expect(isExpectedUser(randomBytes(32), 'sid-1', tag, 'alice')).toBe(false);
    expect(isExpectedUser(secret, 'sid-1', tag.slice(1), 'alice')).toBe(false);
  });

  it('does not show the userId, nor link two sessions of one user', () => {
    const [first, second] = [expectedUserTag(secret, 'sid-1', 'alice'), expectedUserTag(secret, 'sid-2', 'alice')];
    expect(first).not.toContain('alice');
    expect(first).not.toBe(second);
    // The fields are kept apart: ids that merely concatenate alike do not share a tag.
    expect(expectedUserTag(secret, 'ab', 'c')).not.toBe(expectedUserTag(secret, 'a', 'bc'));
  });
});

describe('issuing a challenge', () => {
  it('gives 32 random bytes, a time-ordered single-use id and an expiry half as long again as the browser waits', () => {
    const store = new ChallengeStore({ redemptions: undefined as never, now: () => 1_000_000, timeoutMs: 60_000 });
    const [a, b] = [store.issue(), store.issue()];
    expect(Buffer.from(a.challenge, 'base64url')).toHaveLength(32);
    expect(a.challenge).not.toBe(b.challenge);
    expect(a.sid < b.sid).toBe(true);
    expect(a.exp).toBe(1_000_000 + 90_000);
  });
});
