import { mailBudget, type MailUsage } from './mailBudget';

describe('mailBudget', () => {
  it('lets sign-ups use only their share of each window and keeps the rest for recovery', async () => {
    const budget = mailBudget({ perHour: 5, perDay: 100, recoveryShare: 0.4 });
    const signUps = [];
    for (let i = 0; i < 4; i++) signUps.push((await budget.take('verification')).allowed);
    expect(signUps).toEqual([true, true, true, false]);
    const recoveries = [];
    for (let i = 0; i < 3; i++) recoveries.push((await budget.take('recovery')).allowed);
    expect(recoveries).toEqual([true, true, false]);
    expect(await budget.usage()).toEqual({ hour: { sent: 5, limit: 5, signUps: 3, signUpLimit: 3 }, day: { sent: 5, limit: 100, signUps: 3, signUpLimit: 60 } });
  });

  it('lets recovery use what sign-ups left, and refuses with the seconds until the window frees a mail', async () => {
    const budget = mailBudget({ perHour: 100, perDay: 2, recoveryShare: 0.5 });
    expect(await budget.take('recovery')).toEqual({ allowed: true });
    expect(await budget.take('recovery')).toEqual({ allowed: true });
    const refused = await budget.take('verification');
    expect(refused.allowed).toBe(false);
    expect(!refused.allowed && refused.retryAfterSeconds).toBeGreaterThan(23 * 3600);
  });

  it('counts nothing for a refused mail, and takes back a mail given back', async () => {
    const budget = mailBudget({ perHour: 1, perDay: 10, recoveryShare: 0 });
    await budget.take('verification');
    await budget.take('verification');
    expect((await budget.usage()).day.sent).toBe(1);
    await budget.giveBack('verification');
    expect(await budget.usage()).toMatchObject({ hour: { sent: 0, signUps: 0 }, day: { sent: 0, signUps: 0 } });
    expect((await budget.take('verification')).allowed).toBe(true);
  });

  it('reports every mail counted or refused, with the counts', async () => {
    const heard: MailUsage[] = [];
    const budget = mailBudget({ perHour: 1, perDay: 10, recoveryShare: 0, onUsage: (u) => void heard.push(u) });
    await budget.take('recovery');
    await budget.take('verification');
    expect(heard.map(({ kind, allowed, hour }) => [kind, allowed, hour.sent])).toEqual([
      ['recovery', true, 1],
      ['verification', false, 1],
    ]);
  });
});
