/** Where the operator console is served (console/consoleRouter.ts mounts it there). */
export const CONSOLE_BASE_PATH = '/console';

const isConsolePath = (path: string) => path === CONSOLE_BASE_PATH || path.startsWith(`${CONSOLE_BASE_PATH}/`);

/**
 * What logs and spans record as the path of a console request: the console's pages put tenant
 * user ids (often email addresses) and credential ids in their paths, so a console request is
 * recorded by the route template that answered it (`/console/apps/:appId/users/:userId`), or as
 * `/console/*` when none did (a redirect to the sign-in page, a 404). Undefined for any other
 * path, which is recorded as it came.
 */
export function recordedConsolePath(path: string, routePath: unknown): string | undefined {
  // The console sees paths with repeated slashes merged (app.ts's collapseSlashes).
  if (!isConsolePath(path.includes('//') ? path.replace(/\/{2,}/g, '/') : path)) return undefined;
  return typeof routePath === 'string' && isConsolePath(routePath) ? routePath : `${CONSOLE_BASE_PATH}/*`;
}
