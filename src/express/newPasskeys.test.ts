import type { Credential } from './apiTypes';
import { FIRST_LOOK_AFTER_EXPIRY_MS, LAST_LOOK_AFTER_EXPIRY_MS, newPasskeys } from './newPasskeys';
import type { PasskeyAddedEvent } from './passkeyHooks';
import type { LocalUser } from './userStore';

const user: LocalUser = { id: 'u1', email: 'u1@example.com', username: 'u1', displayName: 'U One' };
const credential = (id: string, nickname = '') => ({ descriptor: { type: 'public-key', id }, nickname, device: 'Chrome, Linux' }) as Credential;

function fixture(listed: Credential[][]) {
  const told: PasskeyAddedEvent[] = [];
  const logged: string[] = [];
  let calls = 0;
  const passkeys = newPasskeys<LocalUser>({
    client: {
      listCredentials: async () => {
        const answer = listed[Math.min(calls++, listed.length - 1)];
        if (!answer) throw new Error('service down');
        return answer;
      },
    },
    findUser: async (userId) => (userId === user.id ? user : undefined),
    hooks: { passkeyAdded: async (event) => void told.push(event) },
    logger: { error: (_details, message) => void logged.push(message) },
  });
  return { passkeys, told, logged, calls: () => calls };
}

beforeEach(() => jest.useFakeTimers());
afterEach(() => jest.useRealTimers());

describe('newPasskeys', () => {
  it('finds the passkey a watched token made after it expires, and tells of it once, though it looks twice', async () => {
    const { passkeys, told, calls } = fixture([[credential('old'), credential('new', 'Phone')]]);
    passkeys.watch('u1', ['old'], Date.now() + 60_000);
    await jest.advanceTimersByTimeAsync(60_000 + FIRST_LOOK_AFTER_EXPIRY_MS - 1);
    expect(calls()).toBe(0);
    await jest.advanceTimersByTimeAsync(1);
    expect(told).toEqual([{ user, userId: 'u1', passkey: { id: 'new', name: 'Phone', device: 'Chrome, Linux' }, via: 'add' }]);
    await jest.advanceTimersByTimeAsync(LAST_LOOK_AFTER_EXPIRY_MS);
    expect(calls()).toBe(2);
    expect(told).toHaveLength(1);
  });

  it('catches a passkey completed after the first look at the last one', async () => {
    const { passkeys, told } = fixture([[credential('old')], [credential('old'), credential('late')]]);
    passkeys.watch('u1', ['old'], Date.now());
    await jest.advanceTimersByTimeAsync(LAST_LOOK_AFTER_EXPIRY_MS);
    expect(told.map((event) => event.passkey.id)).toEqual(['late']);
  });

  it('does not tell again of a passkey the browser reported first, nor of one reported twice', async () => {
    const { passkeys, told } = fixture([[credential('reported')]]);
    passkeys.watch('u1', [], Date.now());
    expect(await passkeys.announce({ user, userId: 'u1', passkey: { id: 'reported', name: '', device: '' }, via: 'add' })).toBe(true);
    expect(await passkeys.announce({ user, userId: 'u1', passkey: { id: 'reported', name: '', device: '' }, via: 'add' })).toBe(false);
    await jest.advanceTimersByTimeAsync(LAST_LOOK_AFTER_EXPIRY_MS);
    expect(told).toHaveLength(1);
  });

  it('tells nobody of a passkey whose user is gone, and logs a look that failed', async () => {
    const gone = fixture([[credential('x')]]);
    gone.passkeys.watch('removed-user', [], Date.now());
    await jest.advanceTimersByTimeAsync(LAST_LOOK_AFTER_EXPIRY_MS);
    expect(gone.told).toEqual([]);
    const down = fixture([]);
    down.passkeys.watch('u1', [], Date.now());
    await jest.advanceTimersByTimeAsync(FIRST_LOOK_AFTER_EXPIRY_MS);
    expect(down.logged).toEqual(['passwordless: could not look for a passkey added to the account (onPasskeyAdded may not hear of it)']);
  });
});
