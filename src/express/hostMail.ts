import { mailBudget, type MailBudget, type MailBudgetSettings, type MailKind } from './mailBudget';
import { mailGate, type MailGate } from './mailGate';
import type { ThrottleSettings } from './throttle';

/**
 * What stands between a visitor and a mail the service sends for the host: one mail per address
 * and interval (repeats absorbed), and the host-wide budget below the service's quota.
 */
export interface HostMail {
  gates: Partial<Record<MailKind, MailGate>>;
  budget: MailBudget | undefined;
}

export function hostMail(throttle: ThrottleSettings | undefined, budget: MailBudgetSettings | undefined): HostMail {
  // 0 seconds turns the gate off (a test host that mails one address many times).
  const gate = (kind: MailKind) => (throttle && throttle.secondsBetweenMailsPerAddress > 0 ? mailGate(kind, throttle.secondsBetweenMailsPerAddress, throttle.store) : undefined);
  return { gates: { verification: gate('verification'), recovery: gate('recovery') }, budget: budget ? mailBudget(budget) : undefined };
}

/** True if a mail of `kind` may go to `email` now; false if one went there within the interval (absorb the request silently). */
export async function gateOpens(mail: HostMail, kind: MailKind, email: string): Promise<boolean> {
  return (await mail.gates[kind]?.open(email)) ?? true;
}

/** Counts the mail against the host's budget, or says when the budget allows one again. */
export async function takeBudget(mail: HostMail, kind: MailKind): Promise<{ allowed: true } | { allowed: false; retryAfterSeconds: number }> {
  return mail.budget ? mail.budget.take(kind) : { allowed: true };
}

/** The mail counted by `gateOpens` and `takeBudget` was not sent: the address may have one again, and the budget gets it back. */
export async function releaseMail(mail: HostMail, kind: MailKind, email: string, budgetTaken: boolean): Promise<void> {
  await mail.gates[kind]?.reopen(email);
  if (budgetTaken) await mail.budget?.giveBack(kind);
}
