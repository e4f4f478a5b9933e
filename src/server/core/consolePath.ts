/** Where the operator console is served (console/consoleRouter.ts mounts it there). */
export const CONSOLE_BASE_PATH = '/console';

const CONSOLE_PREFIX = `${CONSOLE_BASE_PATH}/`;

/** Every request's access line asks: a failed `startsWith` is all it costs an API request. */
const isConsolePath = (path: string) => path.startsWith(CONSOLE_BASE_PATH) && (path.length === CONSOLE_BASE_PATH.length || path.startsWith(CONSOLE_PREFIX));

/**
 * What logs and spans record as the path of a console request: the console's pages put tenant
 * user ids (often email addresses) and credential ids in their paths, so a console request is
 * recorded by the route template that answered it (`/console/apps/:appId/users/:userId`), or as
 * `/console/*` when none did (a redirect to the sign-in page, a 404). Undefined for any other
 * path, which is recorded as it came.
 */
export function recordedConsolePath(path: string, routePath: unknown): string | undefined {
  // The console sees paths with repeated slashes merged (app.ts's collapseSlashes): only leading ones matter here.
  if (!isConsolePath(path.startsWith('//') ? path.replace(/^\/+/, '/') : path)) return undefined;
  return typeof routePath === 'string' && isConsolePath(routePath) ? routePath : `${CONSOLE_BASE_PATH}/*`;
}
