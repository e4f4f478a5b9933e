/**
 * The abort link of an account-deletion warning changes nothing on GET, on a service process:
 * mail scanners fetch links, so the link shows a page whose button posts the confirmation, and
 * only that POST (carrying the link's signed token) cancels the deletion.
 */
import { readFileSync } from 'node:fs';
import { startServiceProcess } from '../support/serviceProcess';
import { MANAGEMENT_KEY } from '../support/testService';

const PROCESS_TIMEOUT_MS = 120_000;
const PUBLIC_URL = 'https://passkeys.example.com';

describe('the abort link, on a service process', () => {
  it(
    'shows a confirmation page on GET (and HEAD), however often it is fetched, and cancels only on the POST of its form',
    async () => {
      const svc = await startServiceProcess({ PUBLIC_URL });
      try {
        const app = await svc.createApp();
        expect((await svc.http.post('/v3/account/delete').set('ApiSecret', app.apiSecret)).status).toBe(200);
        const mailed = /https:\/\/passkeys\.example\.com(\/apps\/delete\/cancel\/\S+)/.exec(readFileSync(svc.mailFile, 'utf8'))?.[1];
        expect(mailed).toMatch(new RegExp(`^/apps/delete/cancel/${app.appId}\\?token=abort_`));
        const link = mailed!;
        const pending = async () => ((await svc.http.get('/admin/apps').set('ManagementKey', MANAGEMENT_KEY)).body.values as { appId: string; deleteAt: string | null }[]).find((a) => a.appId === app.appId)?.deleteAt;
        expect(await pending()).toEqual(expect.any(String));

        // A scanner, then the admin's browser, open the link: nothing changes.
        expect((await svc.http.head(link)).status).toBe(200);
        for (let visit = 0; visit < 3; visit++) {
          const page = await svc.http.get(link).set('User-Agent', 'MailScanner/1.0');
          expect(page.status).toBe(200);
          expect(page.text).toContain('<form method="post" action="">');
        }
        expect(await pending()).toEqual(expect.any(String));
        expect((await svc.http.post('/register/token').set('ApiSecret', app.apiSecret).send({ userId: 'u1', username: 'u1' })).status).toBe(200);

        // The button posts to the page's own address.
        const confirmed = await svc.http.post(link).set('Content-Type', 'application/x-www-form-urlencoded').send('');
        expect(confirmed.status).toBe(200);
        expect(confirmed.text).toContain('Deletion cancelled');
        expect(await pending()).toBeNull();
        // The token worked once.
        expect((await svc.http.post(link)).status).toBe(400);
      } finally {
        await svc.stop();
      }
    },
    PROCESS_TIMEOUT_MS,
  );
});
