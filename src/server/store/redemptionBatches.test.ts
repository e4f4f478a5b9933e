import { batchRedemptions, type Redemption } from './redemptionBatches';

/** A store of recorded ids that counts its statements; `gone` apps refuse a statement as PostgreSQL's foreign key does. */
function fakeStore(gone: string[] = []) {
  const recorded = new Set<string>();
  const statements: Redemption[][] = [];
  const redeemAll = async (rows: Redemption[]) => {
    statements.push(rows);
    if (rows.some((r) => gone.includes(r.tenant))) throw Object.assign(new Error('insert or update violates foreign key constraint'), { code: '23503' });
    const fresh = rows.filter((r) => !recorded.has(`${r.tenant}/${r.tokenId}`));
    for (const r of fresh) recorded.add(`${r.tenant}/${r.tokenId}`);
    return fresh.map(({ tenant, tokenId }) => ({ tenant, tokenId }));
  };
  return { recorded, statements, redeemAll };
}
const row = (tenant: string, tokenId: string): Redemption => ({ tenant, tokenId, expiresAt: 0 });

describe('redemptions batched per turn of the event loop', () => {
  it('records what one turn asks for in one statement, and answers each as if alone', async () => {
    const store = fakeStore();
    const redeem = batchRedemptions(store.redeemAll);
    const answers = await Promise.all([redeem(row('a', '1')), redeem(row('a', '2')), redeem(row('b', '1')), redeem(row('a', '1'))]);
    // The second ask for a/1 in the same turn finds it redeemed by the first.
    expect(answers).toEqual([true, true, true, false]);
    expect(store.statements).toHaveLength(1);
    expect(store.statements[0].map((r) => `${r.tenant}/${r.tokenId}`)).toEqual(['a/1', 'a/2', 'b/1']);
    // A later turn: its own statement; a/2 was redeemed before.
    expect(await Promise.all([redeem(row('a', '2')), redeem(row('a', '3'))])).toEqual([false, true]);
    expect(store.statements).toHaveLength(2);
  });

  it('fails only the redemptions of an app that is gone, when its refusal refuses the whole statement', async () => {
    const store = fakeStore(['gone']);
    const redeem = batchRedemptions(store.redeemAll);
    const outcomes = await Promise.allSettled([redeem(row('a', '1')), redeem(row('gone', '1')), redeem(row('gone', '1')), redeem(row('b', '1'))]);
    expect(outcomes.map((o) => (o.status === 'fulfilled' ? o.value : (o.reason as { code: string }).code))).toEqual([true, '23503', '23503', true]);
    expect([...store.recorded].sort()).toEqual(['a/1', 'b/1']);
  });

  it('fails every redemption of the turn on any other error, and records nothing twice after it', async () => {
    let broken = true;
    const store = fakeStore();
    const redeem = batchRedemptions(async (rows) => {
      if (broken) throw new Error('connection lost');
      return store.redeemAll(rows);
    });
    const outcomes = await Promise.allSettled([redeem(row('a', '1')), redeem(row('a', '2'))]);
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected']);
    broken = false;
    expect(await redeem(row('a', '1'))).toBe(true);
  });
});
