import { ApiError } from './apiError';

/**
 * The app the operator console keeps its operators in (their passkeys, sessions and audit trail).
 * Only the console makes it, and marks it so (`App.reserved`); the management API and the command
 * line refuse the id, so that nobody can plant it (with keys or operators of their own) before the
 * console's first start.
 */
export const CONSOLE_APP_ID = 'pwlconsole';

export const isReservedAppId = (appId: string): boolean => appId === CONSOLE_APP_ID;

/** Refuses the reserved id: 403 `app_id_reserved`. */
export function refuseReservedAppId(appId: string): void {
  if (isReservedAppId(appId)) throw new ApiError('app_id_reserved', { detail: `'${appId}' is the operator console's own app: it is managed by the console (docs/console.md), not through the management API or the apps commands.` });
}
