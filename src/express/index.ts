/**
 * `passwordless-selfhost/express`: passkey sign-in for Express apps, against a passwordless
 * service. Imports nothing of the service itself (no Prisma, no SQLite).
 */
export { passwordless, DEFAULT_PATHS, type PasswordlessMiddleware, type PasswordlessOptions, type PasswordlessPaths } from './passwordless';
export { PasswordlessStrategy, type AccountLookup, type PasswordlessFailure, type PasswordlessStrategyOptions, type PasswordlessSuccessInfo } from './strategy';
export { PasswordlessClient, DEFAULT_API_URL, type PasswordlessClientOptions } from './client';
export { PasswordlessApiError, PasswordlessSettingsError, PasswordlessUnreachableError } from './errors';
export { resolveSettings, DEFAULT_SIGN_IN_SCHEME, type PasswordlessSettings, type PasswordlessSettingsInput, type RegisterSettings } from './settings';
export { InMemoryUserStore, UserExistsError, type LocalUser, type NewUser, type UserStore } from './userStore';
export { sessionSerializers } from './sessionSerializers';
export type { PasskeyAddedEvent, PasskeyEvent, PasskeyEventPasskey } from './passkeyHooks';
export { DEFAULT_MAIL_BUDGET, type MailBudgetSettings, type MailUsage, type MailWindowUsage, type MailKind } from './mailBudget';
export { DEFAULT_THROTTLE, type ThrottleSettings } from './throttle';
export type { HostLogger, PassportLike } from './routes/context';
export { runDoctor, type DoctorOptions, type DoctorSettings } from './doctor/runDoctor';
export type { DoctorCheck } from './doctor/doctorCheck';
export type { SessionFeatureOptions, UserRevocation } from './sessions/sessionFeatures';
export type { SessionView } from './sessions/accountSessions';
export type { SessionStoreLike, StoredSession } from './sessions/sessionDirectory';
export type { SessionRecord } from './sessions/noteSession';
export type { ProblemBody } from '../shared/problem';
export type * from './apiTypes';
