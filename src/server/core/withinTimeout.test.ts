import { withinTimeout } from './withinTimeout';

describe('withinTimeout', () => {
  afterEach(() => jest.useRealTimers());

  it('answers what the work answers, and what it throws', async () => {
    await expect(withinTimeout(Promise.resolve(7), 1000)).resolves.toBe(7);
    await expect(withinTimeout(Promise.reject(Object.assign(new Error('down'), { code: 'ECONNREFUSED' })), 1000)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });

  it('rejects with a Timeout once the time has passed without an answer, not before', async () => {
    jest.useFakeTimers();
    let settled: unknown;
    const stalled = withinTimeout(new Promise(() => undefined), 5000).catch((error: Error) => (settled = error));
    await jest.advanceTimersByTimeAsync(4999);
    expect(settled).toBeUndefined();
    await jest.advanceTimersByTimeAsync(1);
    await stalled;
    expect(settled).toMatchObject({ name: 'Timeout' });
  });

  it('leaves no timer behind once the work has answered', async () => {
    jest.useFakeTimers();
    await withinTimeout(Promise.resolve('done'), 5000);
    expect(jest.getTimerCount()).toBe(0);
  });
});
