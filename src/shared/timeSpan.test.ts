import { formatTimeSpan, parseTimeSpan } from './timeSpan';

describe('parseTimeSpan', () => {
  it.each([
    ['00:00:00', 0],
    ['00:05:00', 300],
    ['1:02:03', 3723],
    ['23:59:59', 86_399],
    ['1.00:00:00', 86_400],
    ['2.03:04:05', 2 * 86_400 + 3 * 3600 + 4 * 60 + 5],
    ['30.00:00:00', 30 * 86_400],
    [' 00:01:00 ', 60],
  ])('reads %p as %d seconds', (text, seconds) => {
    expect(parseTimeSpan(text)).toBe(seconds);
  });

  it.each(['', '5', '00:05', '24:00:00', '1.24:00:00', '00:60:00', '00:00:60', '00:5:00', '00:00:5', '-00:05:00', '00:00:01.5', '1d', 'abc', '1.2.03:00:00', '12345678.00:00:00'])(
    'refuses %p',
    (text) => {
      expect(parseTimeSpan(text)).toBeUndefined();
    },
  );
});

describe('formatTimeSpan', () => {
  it.each([
    [0, '00:00:00'],
    [59, '00:00:59'],
    [300, '00:05:00'],
    [86_399, '23:59:59'],
    [86_400, '1.00:00:00'],
    [90_061, '1.01:01:01'],
    [30 * 86_400, '30.00:00:00'],
  ])('writes %d seconds as %p', (seconds, text) => {
    expect(formatTimeSpan(seconds)).toBe(text);
  });

  it('is read back as the same number of seconds', () => {
    for (const seconds of [0, 1, 61, 3599, 3600, 86_399, 86_400, 86_401, 1_000_000, 30 * 86_400]) expect(parseTimeSpan(formatTimeSpan(seconds))).toBe(seconds);
  });
});
