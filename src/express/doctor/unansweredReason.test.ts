import { unansweredReason } from './unansweredReason';

describe('unansweredReason', () => {
  it("names a connection error by its code or name, never by its message", () => {
    expect(unansweredReason(Object.assign(new Error('connect ECONNREFUSED http://user:pw@host'), { code: 'ECONNREFUSED' }))).toBe('ECONNREFUSED');
    expect(unansweredReason(new TypeError('fetch failed for http://user:pw@host'))).toBe('TypeError');
    expect(unansweredReason(undefined)).toBe('no answer');
  });
});
