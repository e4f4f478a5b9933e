import { expectProblem, expectValidationProblem, useTestService } from '../support/problems';
import { requestOf, type Method } from '../support/robustness';
import { MANAGEMENT_KEY, providers, uniqueAppId } from '../support/testService';

/**
 * The management API at its edges: numbers beyond 32 bits, ids with a NUL, the same call many
 * times at once. Never a 5xx (useTestService checks it after every test).
 */

describe.each(providers())('management API edge cases on %s', (provider) => {
  const service = useTestService(provider);

  describe('management API', () => {
    it.each([
      ['maxUsers', 2 ** 31],
      ['maxUsers', Number.MAX_SAFE_INTEGER],
      ['magicLinkEmailMonthlyQuota', 2 ** 31],
    ])('a %s of %d, beyond 32 bits, is a 400 validation problem at creation and in features, not a server error', async (field, value) => {
      const svc = service();
      const appId = uniqueAppId();
      const admin = (path: string, body: object) => svc.http.post(path).set('ManagementKey', MANAGEMENT_KEY).send(body);
      expectValidationProblem(await admin(`/admin/apps/${appId}/create`, { adminEmail: 'a@b.c', [field]: value }), field);
      const app = await svc.createApp();
      expectValidationProblem(await admin(`/admin/apps/${app.appId}/features`, { [field]: value }), field);
      expect((await admin(`/admin/apps/${app.appId}/features`, { [field]: 2 ** 31 - 1 })).status).toBe(204);
    });

    it.each<[Method, string]>([
      ['GET', '/features'],
      ['POST', '/features'],
      ['POST', '/freeze'],
      ['POST', '/unfreeze'],
      ['GET', '/api-keys'],
      ['POST', '/public-keys'],
      ['POST', '/secret-keys'],
      ['DELETE', ''],
    ])('%s /admin/apps/<id with a NUL>%s is a 404 app_not_found, not a server error', async (method, suffix) => {
      const svc = service();
      for (const id of ['%00', 'app%00x']) {
        const path = `/admin/apps/${id}${suffix}`;
        const request = requestOf(svc, method, path).set('ManagementKey', MANAGEMENT_KEY);
        expectProblem(await (method === 'POST' ? request.send({ scopes: ['register'] }) : request), 404, 'app_not_found');
      }
    });

    it.each<[Method, string]>([
      ['POST', '/lock'],
      ['POST', '/unlock'],
      ['DELETE', ''],
    ])('%s /admin/apps/{id}/api-keys/<key id with a NUL>%s is a 404 api_key_not_found, not a server error', async (method, suffix) => {
      const svc = service();
      const app = await svc.createApp();
      for (const keyId of ['%00', 'ab%00c', '%00%00%00%00']) {
        const path = `/admin/apps/${app.appId}/api-keys/${keyId}${suffix}`;
        expectProblem(await requestOf(svc, method, path).set('ManagementKey', MANAGEMENT_KEY), 404, 'api_key_not_found');
      }
    });

    it('deleting one app ten times at once answers 200 once and 404 app_not_found for the rest', async () => {
      const svc = service();
      const app = await svc.createApp();
      const answers = await Promise.all(Array.from({ length: 10 }, () => svc.http.delete(`/admin/apps/${app.appId}`).set('ManagementKey', MANAGEMENT_KEY)));
      expect(answers.map((r) => r.status).sort()).toEqual([200, ...Array(9).fill(404)]);
      for (const res of answers.filter((r) => r.status !== 200)) expectProblem(res, 404, 'app_not_found');
    });

    it('twenty concurrent key creations for one app all succeed with distinct keys', async () => {
      const svc = service();
      const app = await svc.createApp();
      const answers = await Promise.all(
        Array.from({ length: 20 }, () => svc.http.post(`/admin/apps/${app.appId}/public-keys`).set('ManagementKey', MANAGEMENT_KEY).send({ scopes: ['register'] })),
      );
      expect(answers.map((r) => r.status)).toEqual(Array(20).fill(200));
      expect(new Set(answers.map((r) => r.body.apiKey)).size).toBe(20);
    });
  });
});
