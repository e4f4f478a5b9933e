import type { Request } from 'express';
import { forgetPasswordProof, freshPasswordProof, recordPasswordSignIn } from './passwordSignIn';

const requestWithSession = () => ({ session: {} }) as unknown as Request;
const T0 = 1_800_000_000_000;

describe('a password sign-in is a proof while it is fresh', () => {
  it('answers the same random id within the window (the service spends it), none once forgotten', () => {
    const req = requestWithSession();
    recordPasswordSignIn(req, 'u1', T0);
    const id = freshPasswordProof(req, 'u1', 300, T0 + 300_000);
    expect(id).toMatch(/^[A-Za-z0-9_-]{24}$/);
    expect(freshPasswordProof(req, 'u1', 300, T0)).toBe(id);
    forgetPasswordProof(req);
    expect(freshPasswordProof(req, 'u1', 300, T0)).toBeUndefined();
  });

  it('gets a new id with each password sign-in', () => {
    const a = requestWithSession();
    const b = requestWithSession();
    recordPasswordSignIn(a, 'u1', T0);
    recordPasswordSignIn(b, 'u1', T0);
    expect(freshPasswordProof(a, 'u1', 300, T0)).not.toBe(freshPasswordProof(b, 'u1', 300, T0));
  });

  it('is none when stale, for another user, from the future, never made, or recorded before proofs had ids', () => {
    const stale = requestWithSession();
    recordPasswordSignIn(stale, 'u1', T0);
    expect(freshPasswordProof(stale, 'u1', 300, T0 + 300_001)).toBeUndefined();
    const other = requestWithSession();
    recordPasswordSignIn(other, 'u1', T0);
    expect(freshPasswordProof(other, 'u2', 300, T0)).toBeUndefined();
    const future = requestWithSession();
    recordPasswordSignIn(future, 'u1', T0 + 1);
    expect(freshPasswordProof(future, 'u1', 300, T0)).toBeUndefined();
    expect(freshPasswordProof(requestWithSession(), 'u1', 300, T0)).toBeUndefined();
    expect(freshPasswordProof({} as Request, 'u1', 300, T0)).toBeUndefined();
    const older = { session: { passwordlessPasswordSignIn: { userId: 'u1', at: T0 } } } as unknown as Request;
    expect(freshPasswordProof(older, 'u1', 300, T0)).toBeUndefined();
  });
});
