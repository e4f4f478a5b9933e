import type { Request } from 'express';
import { recordPasswordSignIn, takeFreshPasswordSignIn } from './passwordSignIn';

const requestWithSession = () => ({ session: {} }) as unknown as Request;
const T0 = 1_800_000_000_000;

describe('a password sign-in offers one upgrade while it is fresh', () => {
  it('is taken once, within the window', () => {
    const req = requestWithSession();
    recordPasswordSignIn(req, 'u1', T0);
    expect(takeFreshPasswordSignIn(req, 'u1', 300, T0 + 300_000)).toBe(true);
    expect(takeFreshPasswordSignIn(req, 'u1', 300, T0 + 300_000)).toBe(false);
  });

  it('is refused when stale, for another user, from the future, or never made', () => {
    const stale = requestWithSession();
    recordPasswordSignIn(stale, 'u1', T0);
    expect(takeFreshPasswordSignIn(stale, 'u1', 300, T0 + 300_001)).toBe(false);
    const other = requestWithSession();
    recordPasswordSignIn(other, 'u1', T0);
    expect(takeFreshPasswordSignIn(other, 'u2', 300, T0)).toBe(false);
    const future = requestWithSession();
    recordPasswordSignIn(future, 'u1', T0 + 1);
    expect(takeFreshPasswordSignIn(future, 'u1', 300, T0)).toBe(false);
    expect(takeFreshPasswordSignIn(requestWithSession(), 'u1', 300, T0)).toBe(false);
    expect(takeFreshPasswordSignIn({} as Request, 'u1', 300, T0)).toBe(false);
  });
});
