import { ORIGIN } from '../support/ceremonies';
import { expectProblem, useTestService } from '../support/problems';
import { privateApi } from '../support/privateApi';
import { expectNoServerError, requestOf, type Method } from '../support/robustness';
import { MANAGEMENT_KEY, providers } from '../support/testService';

/**
 * What arrives besides the body: odd path segments, odd query strings and odd key headers. The
 * answer is never a 5xx, and every error is an application/problem+json with an errorCode
 * (useTestService also checks both after every test).
 */

/** Path segments that no route expects: NUL, broken percent-encoding, very long, traversal, emoji. */
const NASTY_SEGMENTS = ['%00', 'a%00b', '%E0%A4%A', '%ED%A0%80', 'x'.repeat(8000), '..%2F..%2Fetc', '%F0%9F%99%82', 'ABC', 'a'.repeat(63)];

describe.each(providers())('paths, query strings and key headers on %s', (provider) => {
  const service = useTestService(provider);

  describe('every endpoint, against the nastiest inputs tried', () => {
    it.each<[Method, string]>([
      ['GET', '/admin/apps/:seg/available'],
      ['POST', '/admin/apps/:seg/create'],
      ['DELETE', '/admin/apps/:seg'],
      ['GET', '/admin/apps/:seg/features'],
      ['POST', '/admin/apps/:seg/features'],
      ['POST', '/admin/apps/:seg/freeze'],
      ['POST', '/admin/apps/:seg/unfreeze'],
      ['GET', '/admin/apps/:seg/api-keys'],
      ['POST', '/admin/apps/:seg/public-keys'],
      ['POST', '/admin/apps/:seg/secret-keys'],
      ['POST', '/admin/apps/:app/api-keys/:seg/lock'],
      ['POST', '/admin/apps/:app/api-keys/:seg/unlock'],
      ['DELETE', '/admin/apps/:app/api-keys/:seg'],
      ['POST', '/admin/apps/:seg/api-keys/:seg/lock'],
      ['PUT', '/admin/apps/:seg/features'],
      ['GET', '/:seg'],
      ['POST', '/api/:seg/begin'],
    ])('%s %s with odd path segments never answers a 5xx', async (method, template) => {
      const svc = service();
      const app = await svc.createApp();
      for (const segment of NASTY_SEGMENTS) {
        const path = template.replace(':app', app.appId).replaceAll(':seg', segment);
        const request = requestOf(svc, method, path).set('ManagementKey', MANAGEMENT_KEY);
        expectNoServerError(await (method === 'POST' ? request.send({ adminEmail: 'a@b.c', scopes: ['register'] }) : request), `${method} ${path.slice(0, 80)}`);
      }
    });

    it.each(['/alias/list', '/credentials/list', '/users/list', '/users/count'])('GET %s with odd query strings never answers a 5xx', async (path) => {
      const svc = service();
      const app = await svc.createApp();
      const queries = ['userId=a&userId=b', 'userId[]=x', 'userId[a]=x', 'UserId=u1&userid=u2', 'userId=', 'userId', 'userId=%', 'userId=%00', 'userId=%ED%A0%80', `userId=${'a'.repeat(7000)}`];
      for (const query of queries) expectNoServerError(await privateApi(svc, app).get(`${path}?${query}`), query.slice(0, 40));
    });

    it('odd key headers are 401 problems', async () => {
      const svc = service();
      const app = await svc.createApp();
      const frozen = await svc.createApp();
      const deleted = await svc.createApp();
      await svc.http.post(`/admin/apps/${frozen.appId}/freeze`).set('ManagementKey', MANAGEMENT_KEY);
      await svc.http.delete(`/admin/apps/${deleted.appId}`).set('ManagementKey', MANAGEMENT_KEY);
      const values = [
        'x'.repeat(10_000),
        `${app.appId}:secret:${'0'.repeat(32)}`,
        `${app.appId}:public:${'0'.repeat(32)}`,
        'verify_x',
        '\u00e9\u00ff',
        app.apiSecret.toUpperCase(),
        `${'a'.repeat(62)}:secret:${'f'.repeat(32)}`,
        frozen.apiSecret,
        frozen.apiKey,
        deleted.apiSecret,
        deleted.apiKey,
      ];
      for (const value of values) {
        const header = value.includes(':public:') ? 'ApiKey' : 'ApiSecret';
        const res = header === 'ApiKey' ? await svc.http.post('/signin/begin').set('ApiKey', value).send({ origin: ORIGIN }) : await svc.http.get('/users/list').set('ApiSecret', value);
        expectProblem(res, 401, header);
      }
    });
  });
});
