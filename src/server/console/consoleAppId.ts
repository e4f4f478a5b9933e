/** The app the console's operators are users of (their passkeys, sessions and event log). */
export const CONSOLE_APP_ID = 'pwlconsole';
