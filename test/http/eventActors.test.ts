/**
 * Who acted, as the event log records it: a caller in process (the operator console) names itself
 * with the trailing `by` of a service method, and its events carry it as `performedBy`; without
 * `by` the API's callers get the values they always got (test/http/events.test.ts holds those).
 */
import pino from 'pino';
import { registerPasskey } from '../support/ceremonies';
import { managementClient } from '../support/http';
import { LOOPBACK_ALLOWED } from '../support/inProcessWebhookService';
import { privateApi, setFeatures } from '../support/privateApi';
import { useTestService } from '../support/problems';
import { providers, startTestService, uniqueAppId, type TestApp, type TestService } from '../support/testService';

const OPERATOR = 'operator@console.example';

describe.each(providers())('who acted, in the event log, on %s', (provider) => {
  // The worker is off: test events and replays stay queued, and nothing is sent to the unused port.
  const service = useTestService(provider, { ...LOOPBACK_ALLOWED, WEBHOOK_WORKER: 'false' });
  let svc: TestService;
  beforeEach(() => {
    svc = service();
  });

  const loggingApp = async (): Promise<TestApp> => {
    const app = await svc.createApp();
    await setFeatures(svc, app, { eventLoggingIsEnabled: true });
    return app;
  };
  /** The app's events, oldest first, as [type, subject, performedBy]. */
  const eventsOf = async (appId: string): Promise<[string, string, string][]> => {
    const page = await svc.services.events.page(appId, { pageNumber: 1, numberOfResults: 1000 });
    return page.events.map((e) => [e.eventType, e.subject, e.performedBy] as [string, string, string]).reverse();
  };

  it('records the creator of an app as given, in place of its admin email', async () => {
    const appId = uniqueAppId('actor');
    await svc.services.apps.create(appId, { adminEmail: 'admin@example.com', eventLoggingIsEnabled: true }, OPERATOR);
    expect(await eventsOf(appId)).toEqual([['ApiManagementAppCreated', appId, OPERATOR]]);
  });

  it('records the actor of key, feature and freeze changes, and the reference’s defaults without one', async () => {
    const app = await loggingApp();
    const { apps } = svc.services;
    const key = await apps.createKey(app.appId, 'public', ['register', 'login'], OPERATOR);
    const keyId = key.slice(-4);
    await apps.setKeyLocked(app.appId, keyId, true, OPERATOR);
    await apps.setKeyLocked(app.appId, keyId, false);
    await apps.deleteKey(app.appId, keyId, OPERATOR);
    await apps.setFeatures(app.appId, { isMagicLinksEnabled: false }, OPERATOR);
    await apps.setFrozen(app.appId, true, OPERATOR);
    await apps.setFrozen(app.appId, false);
    expect(await eventsOf(app.appId)).toEqual([
      ['ApiManagementFeaturesChanged', app.appId, 'Unknown User'],
      ['AdminApiKeyCreated', keyId, OPERATOR],
      ['AdminApiKeyLocked', keyId, OPERATOR],
      ['AdminApiKeyUnlocked', keyId, 'Unknown User'],
      ['AdminApiKeyDeleted', keyId, OPERATOR],
      ['ApiManagementFeaturesChanged', app.appId, OPERATOR],
      ['ApiManagementAppFrozen', app.appId, OPERATOR],
      ['ApiManagementAppUnfrozen', app.appId, 'System'],
    ]);
  });

  it('records who deleted a passkey and who revoked a user', async () => {
    const app = await loggingApp();
    const kept = await registerPasskey(svc, app);
    const revoked = await registerPasskey(svc, app);
    const credentialId = (await privateApi(svc, app).get(`/credentials/list?userId=${kept.userId}`)).body[0].descriptor.id as string;
    await svc.services.credentials.delete(app.appId, credentialId, OPERATOR);
    await svc.services.users.delete(app.appId, revoked.userId, OPERATOR);
    // Through the API, as before: System.
    await privateApi(svc, app).post('/users/delete', { userId: kept.userId });
    const deletions = (await eventsOf(app.appId)).filter(([type]) => type === 'ApiUserDeleteCredential' || type === 'ApiUserDeleted');
    expect(deletions).toEqual([
      ['ApiUserDeleteCredential', kept.userId, OPERATOR],
      ['ApiUserDeleted', revoked.userId, OPERATOR],
      ['ApiUserDeleted', kept.userId, 'System'],
    ]);
    expect((await privateApi(svc, app).get(`/credentials/list?userId=${revoked.userId}`)).body).toEqual([]);
  });

  it('lets the actor stand in for the performedBy of an authentication configuration’s input, in the event and in created by', async () => {
    const app = await loggingApp();
    const { authConfigs } = svc.services;
    await authConfigs.add(app.appId, { purpose: 'pay', timeToLive: 60, performedBy: 'api-caller' }, OPERATOR);
    await authConfigs.edit(app.appId, { purpose: 'pay', timeToLive: 120, performedBy: 'api-caller' });
    await authConfigs.remove(app.appId, { purpose: 'pay', performedBy: 'api-caller' }, OPERATOR);
    await authConfigs.add(app.appId, { purpose: 'transfer', timeToLive: 60, performedBy: 'api-caller' }, OPERATOR);
    await authConfigs.edit(app.appId, { purpose: 'transfer', timeToLive: 90, performedBy: 'api-caller' }, 'second-operator');
    const [transfer] = await authConfigs.list(app.appId, 'transfer');
    expect([transfer.createdBy, transfer.editedBy]).toEqual([OPERATOR, 'second-operator']);
    expect((await eventsOf(app.appId)).slice(1)).toEqual([
      ['ApiAuthenticationConfigurationCreated', 'pay', OPERATOR],
      ['ApiAuthenticationConfigurationUpdated', 'pay', 'api-caller'],
      ['ApiAuthenticationConfigurationDeleted', 'pay', OPERATOR],
      ['ApiAuthenticationConfigurationCreated', 'transfer', OPERATOR],
      ['ApiAuthenticationConfigurationUpdated', 'transfer', 'second-operator'],
    ]);
  });

  it('records every change to a webhook endpoint and every send asked for, by its endpoint id and never its URL', async () => {
    const app = await loggingApp();
    const { webhooks, webhookDeliveries } = svc.services;
    const url = 'http://127.0.0.1:9/hooks?token=not-for-the-log';
    const created = await webhooks.create(app.appId, { url, eventTypes: ['user.deleted'] }, OPERATOR);
    await webhooks.update(app.appId, created.id, { enabled: false, description: 'paused' }, OPERATOR);
    await webhooks.rotateSecret(app.appId, created.id, OPERATOR);
    const test = await webhookDeliveries.sendTest(app.appId, created.id, OPERATOR);
    await webhookDeliveries.redeliver(app.appId, test.id);
    // Through the API: Unknown User, as the reference's other admin events.
    expect((await privateApi(svc, app).post('/webhooks/delete', { id: created.id })).status).toBe(204);
    expect((await eventsOf(app.appId)).slice(1)).toEqual([
      ['AdminWebhookCreated', created.id, OPERATOR],
      ['AdminWebhookUpdated', created.id, OPERATOR],
      ['AdminWebhookSecretRotated', created.id, OPERATOR],
      ['AdminWebhookTestSent', created.id, OPERATOR],
      ['AdminWebhookRedelivered', created.id, 'Unknown User'],
      ['AdminWebhookDeleted', created.id, 'Unknown User'],
    ]);
    const everything = JSON.stringify(await svc.services.events.page(app.appId, { pageNumber: 1 }));
    for (const part of ['/hooks', 'not-for-the-log', created.secret]) expect(everything).not.toContain(part);
    expect(everything).toContain('changed: enabled, description');
  });

  it('records no deletion in the log of an app re-created under the id of one just deleted', async () => {
    const appId = uniqueAppId('actor');
    await svc.services.apps.create(appId, { adminEmail: 'admin@example.com', eventLoggingIsEnabled: true });
    await svc.services.apps.delete(appId, OPERATOR);
    await svc.services.apps.create(appId, { adminEmail: 'admin@example.com', eventLoggingIsEnabled: true }, OPERATOR);
    expect(await eventsOf(appId)).toEqual([['ApiManagementAppCreated', appId, OPERATOR]]);
  });
});

describe('who deleted an app', () => {
  it('is named in the process log, the app’s own log going with it', async () => {
    const lines: Record<string, unknown>[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    const svc = await startTestService('sqlite', {}, { logger });
    try {
      const [byOperator, byApi] = [await svc.createApp(), await svc.createApp()];
      await svc.services.apps.delete(byOperator.appId, OPERATOR);
      expect((await managementClient(svc).delete(`/admin/apps/${byApi.appId}`)).status).toBe(200);
      const deletions = lines.filter((line) => line.msg === 'app deleted').map(({ appId, performedBy }) => ({ appId, performedBy }));
      expect(deletions).toEqual([
        { appId: byOperator.appId, performedBy: OPERATOR },
        { appId: byApi.appId, performedBy: 'Unknown User' },
      ]);
    } finally {
      await svc.close();
    }
  });
});
