import { isForeignKeyViolation } from './storeErrors';
import { ApiError } from './apiError';

/**
 * A write the database refused because the app it was for was deleted while the request ran (by
 * another request, replica or the CLI). The foreign keys guarantee nothing of it was stored, so
 * it is the caller's app that is missing, not a server failure.
 */
export function storeProblem(error: unknown): ApiError | undefined {
  return isForeignKeyViolation(error) ? appDeletedMeanwhile() : undefined;
}

/** The app of the request was deleted after the request was authenticated. */
export const appDeletedMeanwhile = () => new ApiError('app_not_found', { detail: 'The app was deleted while this request ran; nothing was stored.' });
