import { createHash } from 'node:crypto';
import type { Services } from '../../src/server/services';
import type { Db } from '../../src/server/store';
import { ORIGIN, RPID, registerPasskey, signIn, verifyToken, type ServiceHttp } from './ceremonies';
import { MANAGEMENT_KEY, type TestApp } from './testService';

/** Every table that holds rows of an app, by its Prisma delegate, and the App row itself. */
export const APP_TABLES = ['app', 'appCounter', 'apiKey', 'tokenKey', 'user', 'credential', 'alias', 'redeemedToken', 'authConfig', 'event', 'dispatchedEmail', 'authenticator', 'dailyReport', 'signInCount', 'webhookEndpoint', 'webhookDelivery', 'webhookAttempt'] as const;
export type AppTable = (typeof APP_TABLES)[number];

/** The ids of the webhook endpoint and delivery `populateApp` gives an app: of the service's own forms, so the APIs find them. */
export function webhookIdsOf(appId: string): { endpointId: string; deliveryId: string } {
  const digest = createHash('sha256').update(appId).digest('hex');
  return { endpointId: `ep_${digest.slice(0, 24)}`, deliveryId: `msg_${digest.slice(24, 60)}` };
}

/** How many rows each table holds for `appId`. */
export async function rowCountsOf(db: Db, appId: string): Promise<Record<AppTable, number>> {
  const counts = {} as Record<AppTable, number>;
  for (const table of APP_TABLES) {
    const where = table === 'app' ? { id: appId } : { tenant: appId };
    counts[table] = await (db[table] as unknown as { count(args: { where: object }): Promise<number> }).count({ where });
  }
  return counts;
}

export const NO_ROWS: Record<AppTable, number> = Object.fromEntries(APP_TABLES.map((t) => [t, 0])) as Record<AppTable, number>;

/**
 * Gives `app` a row in every table, through the API as a customer would: event logging on, a
 * passkey with an alias, a verified sign-in, a sign-in left half-way, a custom authentication
 * configuration and a magic link to the admin. Given the in-process services, also the rows no call
 * makes without FIDO metadata or a day's end: a listed authenticator and a daily report, and the
 * verified sign-in's count written at once (rather than at the next flush).
 * Returns the passkey.
 */
export async function populateApp(svc: ServiceHttp & { services?: Services }, app: TestApp) {
  const ok = (what: string, status: number, expected: number) => {
    if (status !== expected) throw new Error(`${what}: ${status}`);
  };
  const features = await svc.http.post(`/admin/apps/${app.appId}/features`).set('ManagementKey', MANAGEMENT_KEY).send({ eventLoggingIsEnabled: true });
  ok('features', features.status, 204);
  // With PRF asked for, so the passkey's columns are all filled (prfSalt, prfEnabled).
  const { credential, userId, complete } = await registerPasskey(svc, app, { aliases: [`${app.appId}@example.com`], tokenBody: { extensions: { prf: true } } });
  ok('register/complete', complete.status, 200);
  const signin = await signIn(svc, app, credential, { userId });
  ok('signin/verify', (await verifyToken(svc, app, signin.complete.body.token)).status, 200);
  ok('signin/begin', (await svc.http.post('/signin/begin').set('ApiKey', app.apiKey).send({ userId, RPID, Origin: ORIGIN })).status, 200);
  const secret = (path: string, body: object) => svc.http.post(path).set('ApiSecret', app.apiSecret).send(body);
  ok('auth-configs/add', (await secret('/auth-configs/add', { purpose: 'checkout', timeToLive: '00:05:00', performedBy: 'test', extensions: { prf: true } })).status, 201);
  ok('magic-links/send', (await secret('/magic-links/send', { emailAddress: 'admin@example.com', urlTemplate: 'https://shop.example.com/?t=$TOKEN', userId })).status, 204);
  if (svc.services) {
    const { db } = svc.services.store;
    await svc.services.signIns.flush();
    await db.authenticator.create({ data: { tenant: app.appId, aaGuid: '6d44ba9b-f6ec-2e49-b930-0c8fe920cb73', isAllowed: false } });
    await db.dailyReport.create({ data: { tenant: app.appId, day: '2026-01-01', users: 1, credentials: 1, dailyActiveUsers: 1, weeklyActiveUsers: 1 } });
    // A webhook endpoint (disabled: nothing is sent during the tests that use this) with a delivered message and its attempt.
    const { endpointId, deliveryId } = webhookIdsOf(app.appId);
    await db.webhookEndpoint.create({ data: { id: endpointId, tenant: app.appId, url: 'https://hooks.example.com/in', eventTypes: '["user.deleted"]', enabled: false, secret: 'whsec_c2VjcmV0' } });
    await db.webhookDelivery.create({ data: { id: deliveryId, tenant: app.appId, endpointId, eventType: 'user.deleted', payload: '{}', state: 'delivered', attempts: 1 } });
    await db.webhookAttempt.create({ data: { id: `att_${app.appId}`, tenant: app.appId, deliveryId, status: 200, durationMs: 3 } });
  }
  return { credential, userId };
}
