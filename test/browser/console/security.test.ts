/**
 * The console against an attacker (issue 36), in Chromium with a virtual authenticator and a real
 * service process: a cross-site form post is refused (by the SameSite=Strict cookie, and by the
 * CSRF check on its own when the cookie is sent anyway), and a forged `Host` changes no link and no
 * origin: every link and origin comes from PUBLIC_URL.
 */
import { createServer, type Server } from 'node:http';
import supertest from 'supertest';
import { browserSuite } from '../support/chromium';
import { startConsoleHarness, type ConsoleHarness, type OperatorDevice } from '../support/consoleHarness';

jest.setTimeout(90_000);

browserSuite('console security')('the console against forged requests', () => {
  let h: ConsoleHarness;
  let operator: OperatorDevice;
  let attacker: Server;
  let attackerOrigin: string;
  let cookie: string;
  let csrf: string;

  beforeAll(async () => {
    h = await startConsoleHarness();
    operator = await h.operator('guard@example.com');
    // Another site (127.0.0.1 is not localhost's site): a page that posts a form to the console at once.
    attacker = createServer((_req, res) => {
      res.setHeader('Content-Type', 'text/html');
      res.end(`<!doctype html><form id="f" method="post" action="${h.origin}/console/operators/invite"><input name="email" value="mallory@evil.example"><input name="_csrf" value="guess"></form><script>document.getElementById('f').submit()</script>`);
    });
    await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
    attackerOrigin = `http://127.0.0.1:${(attacker.address() as { port: number }).port}`;
    const session = (await operator.context.cookies()).find((c) => c.name === 'console');
    cookie = `console=${session!.value}`;
    await operator.page.goto(`${h.origin}/console/operators`);
    csrf = (await operator.page.getAttribute('input[name=_csrf]', 'value'))!;
  });

  afterAll(async () => {
    await new Promise((resolve) => attacker?.close(resolve));
    await h?.close();
  });

  it('refuses a cross-site form post from the signed-in operator\'s browser, and makes no invite', async () => {
    const answered = operator.page.waitForResponse((res) => res.url() === `${h.origin}/console/operators/invite`);
    await operator.page.goto(attackerOrigin);
    const res = await answered;
    expect(res.status()).toBe(401); // the Strict cookie was not sent: not even signed in
    expect(await res.text()).not.toContain('mallory@evil.example');
  });

  it('refuses a post that carries the session cookie but comes from another site or lacks the form token', async () => {
    const http = supertest(h.service.url);
    const crossSite = await http.post('/console/operators/invite').set('Cookie', cookie).set('Sec-Fetch-Site', 'cross-site').type('form').send({ email: 'mallory@evil.example', _csrf: csrf });
    expect(crossSite.status).toBe(403);
    const noToken = await http.post('/console/operators/invite').set('Cookie', cookie).set('Sec-Fetch-Site', 'same-origin').type('form').send({ email: 'mallory@evil.example' });
    expect(noToken.status).toBe(403);
    const wrongOrigin = await http.post('/console/operators/invite').set('Cookie', cookie).set('Origin', attackerOrigin).type('form').send({ email: 'mallory@evil.example', _csrf: csrf });
    expect(wrongOrigin.status).toBe(403);
    expect(crossSite.text + noToken.text + wrongOrigin.text).not.toContain('Invite made');
  });

  it('builds every link and origin from PUBLIC_URL whatever Host the request names', async () => {
    const http = supertest(h.service.url);
    const invite = await http.post('/console/operators/invite').set('Host', 'evil.example').set('Cookie', cookie).set('Sec-Fetch-Site', 'same-origin').type('form').send({ email: 'second@example.com', _csrf: csrf });
    expect(invite.status).toBe(200);
    const links = [...invite.text.matchAll(/https?:\/\/[^\s"<]+/g)].map((m) => m[0]);
    expect(links.length).toBeGreaterThan(0);
    for (const link of links) expect(link.startsWith(`${h.origin}/`)).toBe(true);
    expect(invite.text).not.toContain('evil.example');

    const config = await http.get('/console/passwordless-config').set('Host', 'evil.example');
    expect(config.body.apiUrl).toBe(h.origin);
    const away = await http.get('/console/apps').set('Host', 'evil.example');
    expect(away.headers.location).toBe('/console/sign-in?next=%2Fconsole%2Fapps');

    // The invite link made under the forged Host works at the real origin: a new operator signs in there.
    const device = await h.device();
    await h.acceptInvite(device, links.find((l) => l.includes('/console/invite#token='))!.replace(/&amp;/g, '&'));
    expect(await device.page.textContent('header .who')).toBe('second@example.com');
  });
});
