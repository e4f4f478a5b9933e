import type { Store } from 'express-rate-limit';
import { windowCounter } from './windowCounter';

/**
 * At most one mail of a kind per email address per interval, whoever asks: repeats inside the
 * interval are absorbed silently (the route still answers 202), so nobody can flood a mailbox, and
 * nobody can make the owner's own request fail either.
 */
export interface MailGate {
  /** True if a mail to `email` may go out now (and the interval starts); false if one went out within it. */
  open(email: string): Promise<boolean>;
  /** Reopens the gate for `email`: the mail it let through was not sent after all. */
  reopen(email: string): Promise<void>;
}

export function mailGate(kind: string, intervalSeconds: number, store: (() => Store) | undefined): MailGate {
  const counter = windowCounter(intervalSeconds * 1000, store);
  const keyOf = (email: string) => `passwordless-${kind}-mail:${email}`;
  return {
    async open(email) {
      return (await counter.hit(keyOf(email))).count === 1;
    },
    async reopen(email) {
      await counter.undo(keyOf(email));
    },
  };
}
