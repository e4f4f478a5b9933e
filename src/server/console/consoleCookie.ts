/** The console's session cookie: its name and the attributes it is set with, and cleared with. */
export interface ConsoleCookie {
  name: string;
  options: { httpOnly: true; sameSite: 'strict'; secure: boolean; path: string };
}

/**
 * One place for the cookie's name and path, which sign-out must repeat exactly (a browser keeps a
 * cookie whose clearing names another path, or a `__Host-` one cleared without Secure): over
 * https `__Host-console` (Secure, path `/`, as the prefix demands), over http `console` at the console's base (`/console`).
 */
export function consoleCookie(publicUrl: URL, base: string): ConsoleCookie {
  const secure = publicUrl.protocol === 'https:';
  return { name: secure ? '__Host-console' : 'console', options: { httpOnly: true, sameSite: 'strict', secure, path: secure ? '/' : base } };
}
