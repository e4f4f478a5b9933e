import { formChecked } from './formChecked';

/**
 * An authentication configuration's form as the private API's add and edit schemas read it:
 * `extensions` from its two checkboxes (only what is asked for; none is `{}`, which an edit stores
 * as "no extensions"). `performedBy` is the operator, never a field of the form.
 */
export function authConfigFromForm(body: Record<string, unknown>, performedBy: string): Record<string, unknown> {
  const extensions: Record<string, unknown> = {};
  if (formChecked(body.prf)) extensions.prf = true;
  if (formChecked(body.largeBlob)) extensions.largeBlob = 'read';
  return {
    purpose: body.purpose,
    timeToLive: typeof body.timeToLive === 'string' ? body.timeToLive.trim() : body.timeToLive,
    userVerificationRequirement: body.userVerificationRequirement === '' ? undefined : body.userVerificationRequirement,
    extensions,
    performedBy,
  };
}
