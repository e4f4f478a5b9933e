import { mailGate } from './mailGate';

describe('mailGate', () => {
  afterEach(() => jest.useRealTimers());

  it('lets one mail per address through in an interval, absorbs the repeats, and opens again after it', async () => {
    jest.useFakeTimers({ now: Date.UTC(2026, 10, 27), doNotFake: ['nextTick', 'setImmediate'] });
    const gate = mailGate('recovery', 300, undefined);
    expect([await gate.open('a@example.com'), await gate.open('a@example.com'), await gate.open('b@example.com')]).toEqual([true, false, true]);
    jest.setSystemTime(Date.UTC(2026, 10, 27) + 301_000);
    expect(await gate.open('a@example.com')).toBe(true);
  });

  it('reopens for an address whose mail was not sent', async () => {
    const gate = mailGate('verification', 300, undefined);
    expect(await gate.open('a@example.com')).toBe(true);
    await gate.reopen('a@example.com');
    expect(await gate.open('a@example.com')).toBe(true);
  });
});
