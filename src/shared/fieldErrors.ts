import type { z } from 'zod';

/** The field a zod issue is about, as problem bodies name it (`aliases.2`; `body` for the whole). */
export function fieldName(path: readonly PropertyKey[]): string {
  return path.length === 0 ? 'body' : path.map(String).join('.');
}

/** `The <field> field <reason>.`: one message of a validation problem's `errors`. */
export function fieldMessage(field: string, reason: string): string {
  return `The ${field} field ${reason}`.replace(/\.?$/, '.');
}

function reasonOf(issue: z.core.$ZodIssue): string {
  // A missing or null field is "required" whatever the schema says it expected.
  if (issue.code === 'invalid_type' && (issue as { input?: unknown }).input == null) return 'is required';
  return issue.message.replace(/^Invalid input: /, '').replace(/^([A-Z])/, (c) => c.toLowerCase());
}

/**
 * Zod issues as the `errors` of a validation problem, `{field: [messages]}`, the way both the
 * service and the middleware answer them. Needs the issues parsed with `reportInput: true`.
 */
export function fieldErrors(issues: readonly z.core.$ZodIssue[]): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  for (const issue of issues) {
    const field = fieldName(issue.path);
    (errors[field] ??= []).push(fieldMessage(field, reasonOf(issue)));
  }
  return errors;
}
