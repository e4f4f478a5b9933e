import { z } from 'zod';
import { passkeyNameProblem } from '../../shared/passkeyName';

/** A passkey's nickname as the service takes it: at most 64 characters, none hidden or reordering. */
export const passkeyName = z.string().superRefine((value, ctx) => {
  const problem = passkeyNameProblem(value);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});
