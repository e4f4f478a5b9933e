/** The app the console's operators are users of (their passkeys, sessions and event log). */
export { CONSOLE_APP_ID } from '../core/reservedAppId';
