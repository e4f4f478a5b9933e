import { providers, startTestService, warnIfPostgresSkipped, type TestService } from '../support/testService';

warnIfPostgresSkipped();

describe.each(providers())('service smoke on %s', (provider) => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService(provider);
  });
  afterAll(() => svc.close());

  it('creates an app whose keys authenticate', async () => {
    const app = await svc.createApp();
    expect(app.apiKey).toMatch(new RegExp(`^${app.appId}:public:[0-9a-f]{32}$`));
    expect(app.apiSecret).toMatch(new RegExp(`^${app.appId}:secret:[0-9a-f]{32}$`));
    const res = await svc.http.get(`/admin/apps/${app.appId}/features`).set('ManagementKey', 'test-management-key-0123456789');
    expect(res.status).toBe(200);
    expect(res.body.plan).toBe('trial');
  });
});
