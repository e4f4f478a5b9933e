/**
 * A path the browser may be sent to after a form or a sign-in, from a value the request carries
 * (`_back`, `next`): only a console path (no other site, no `//`, no backslash or space that a
 * browser might read as one), else the console's home. The one check against open redirects.
 */
export function consolePathOf(base: string, value: unknown): string {
  const text = typeof value === 'string' ? value : '';
  return text.startsWith(`${base}/`) && !text.includes('//') && !/[\\\s]/.test(text) ? text : `${base}/apps`;
}
