/**
 * A request path as a browser resolves it: dot segments removed (`..`, and `%2e%2e` too), a
 * backslash read as a slash, and runs of slashes taken as one (as Express's routing does not, but a
 * path check must). What `isConsolePath` and `consolePathOf` decide on.
 */
export function normalisedPath(path: string): string {
  try {
    // A fixed origin: only the path is read, and `//x` stays a path (never an authority).
    return new URL(`http://console.invalid${path.startsWith('/') ? '' : '/'}${path}`).pathname.replace(/\/{2,}/g, '/');
  } catch {
    return '/';
  }
}

/**
 * A path the browser may be sent to after a form or a sign-in, from a value the request carries
 * (`_back`, `next`): only a console path (no other site, no `//`, no backslash or space that a
 * browser might read as one, no dot segment that leaves the console once resolved), else the
 * console's home. The one check against open redirects.
 */
export function consolePathOf(base: string, value: unknown): string {
  const text = typeof value === 'string' ? value : '';
  const path = text.split(/[?#]/)[0];
  return text.startsWith(`${base}/`) && !text.includes('//') && !/[\\\s]/.test(text) && normalisedPath(path) === path ? text : `${base}/apps`;
}
