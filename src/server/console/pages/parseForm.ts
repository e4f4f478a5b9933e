import type { z } from 'zod';
import { ApiError } from '../../core/apiError';
import { fieldErrors } from '../../../shared/fieldErrors';

/** A posted form read with the API's own schema: a bad field is the API's 400 (`validation_failed`), shown on the form's page. */
export function parseForm<S extends z.ZodType>(schema: S, values: unknown): z.output<S> {
  const result = schema.safeParse(values);
  if (result.success) return result.data;
  const errors = fieldErrors(result.error.issues);
  const [field, messages] = Object.entries(errors)[0] ?? ['form', ['is not valid']];
  throw new ApiError('validation_failed', { detail: `${field} ${messages[0]}.`, extras: { errors } });
}
