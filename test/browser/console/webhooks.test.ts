/**
 * The operator console's webhooks, authenticators and health pages (issue 36), in Debian's Chromium
 * with a virtual authenticator, against a real service process: an operator adds a webhook
 * endpoint pointing at a loopback receiver of the test's own (after a refused URL shows the API's
 * message), sends a test event, sees it delivered in the delivery log, and the receiver got it with
 * a valid Standard Webhooks signature under the secret shown once; a replay keeps the webhook-id;
 * a rotated secret signs the next one; disable, enable and delete. Each action is in the console
 * app's log with the operator's name. Screenshots of the three pages for docs/console.md.
 */
import Database from 'better-sqlite3';
import type { Locator, Page } from 'playwright-core';
import { sqliteFilename } from '../../../src/server/store';
import { eventually } from '../../support/eventually';
import { KEYS, metadataEnv, testBlob, writeBlob } from '../../support/metadata';
import { createTestPki, type TestPki } from '../../support/testPki';
import { MANAGEMENT_KEY, uniqueAppId } from '../../support/testService';
import { startWebhookReceiver, verifyWebhook, type ReceivedWebhook, type WebhookReceiver } from '../../support/webhookReceiver';
import { browserSuite } from '../support/chromium';
import { startConsoleHarness, type ConsoleHarness } from '../support/consoleHarness';

jest.setTimeout(120_000);

/** Plain http to loopback, for the receiver on 127.0.0.1 (docs/security.md, "Webhook destinations"). */
const WEBHOOK_ENV = { WEBHOOK_ALLOW_INSECURE: 'true', WEBHOOK_ALLOW_PRIVATE_NETWORKS: '127.0.0.1' };
/** How long the page is polled for a delivery the receiver already answered (its state is written right after). */
const LOG_BOUND_MS = 15_000;

browserSuite('console webhooks')('the console: webhooks, authenticators and health', () => {
  let h: ConsoleHarness;
  let pki: TestPki;
  let receiver: WebhookReceiver;
  let appId: string;

  beforeAll(async () => {
    pki = createTestPki();
    receiver = await startWebhookReceiver();
    h = await startConsoleHarness({ ...WEBHOOK_ENV, ...metadataEnv(pki, writeBlob(pki, 'console-webhooks.jwt', testBlob(pki))) });
    appId = uniqueAppId('shop');
    const created = await h.service.http.post(`/admin/apps/${appId}/create`).set('ManagementKey', MANAGEMENT_KEY).send({ adminEmail: 'admin@example.com', plan: 'enterprise' });
    expect(created.status).toBe(200);
  });

  afterAll(async () => {
    await h?.close();
    await receiver?.close();
    pki?.remove();
  });

  /** The receiver's webhooks that pass `match`, once there are `count` of them (waits on their arrival, bounded). */
  const arrived = (what: string, count: number, match: (w: ReceivedWebhook) => boolean) =>
    eventually(what, () => {
      const found = receiver.received.filter(match);
      return found.length >= count ? found : undefined;
    });

  /** Reloads the page until the delivery's row is in `state`, within a bound. */
  const seeInLog = (page: Page, deliveryId: string, state: string) =>
    eventually(
      `delivery ${deliveryId} ${state} in the log`,
      async () => {
        await page.reload();
        const row = page.locator(`tr[data-delivery="${deliveryId}"]`);
        return (await row.count()) === 1 && (await row.getAttribute('data-state')) === state ? row : undefined;
      },
      LOG_BOUND_MS,
      100,
    );

  /** Clicks a form's button and waits for the page the post lands on (post/redirect/get, often to the same URL, or a page with a secret). */
  const submit = async (page: Page, button: Locator) => {
    await Promise.all([page.waitForNavigation(), button.click()]);
  };

  /** The console app's log: what the operators did (flushed within a second). */
  const consoleLog = () => {
    const db = new Database(sqliteFilename(h.service.database.url), { readonly: true });
    try {
      return db.prepare(`SELECT "message", "performedBy" FROM "Event" WHERE "tenant" = 'pwlconsole' AND "eventType" = 'ConsoleActionPerformed'`).all() as { message: string; performedBy: string }[];
    } finally {
      db.close();
    }
  };

  it('adds an endpoint, sends a test that the receiver verifies and the log shows delivered, replays it, rotates the secret, and deletes the endpoint', async () => {
    const { page, context } = await h.operator('hooks@example.com');
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: h.origin });
    page.on('dialog', (dialog) => void dialog.accept());
    const webhooksPage = `${h.origin}/console/apps/${appId}/webhooks`;
    await page.goto(webhooksPage);
    expect(await page.textContent('main')).toContain('No endpoints yet.');

    // A URL the destination rules refuse (a private address): the API's message, and no endpoint.
    await page.fill('input[name=url]', 'https://10.1.2.3/hooks');
    await page.check('input[name=eventTypes][value="passkey.registered"]');
    await submit(page, page.locator('form.stack button[type=submit]'));
    expect(page.url()).toBe(webhooksPage);
    expect(await page.textContent('.notice.error')).toContain('This webhook URL is not allowed.');
    expect(await page.locator('[data-endpoint]').count()).toBe(0);

    // The receiver's URL: added, its secret shown once, with a copy button.
    const url = receiver.url('/console-hook');
    await page.fill('input[name=url]', url);
    await page.fill('input[name=description]', 'Order service');
    await page.check('input[name=eventTypes][value="passkey.registered"]');
    await page.check('input[name=eventTypes][value="user.deleted"]');
    await submit(page, page.locator('form.stack button[type=submit]'));
    const secret = (await page.textContent('[data-webhook-secret] [data-secret]'))!.trim();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/=]+$/);
    await page.click('[data-webhook-secret] [data-copy]');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
    const endpoints = (await h.service.http.get(`/admin/apps/${appId}/webhooks`).set('ManagementKey', MANAGEMENT_KEY)).body as { id: string; url: string; eventTypes: string[]; description: string }[];
    expect(endpoints).toEqual([expect.objectContaining({ url, eventTypes: ['passkey.registered', 'user.deleted'], description: 'Order service' })]);
    const endpointId = endpoints[0].id;
    // Shown once: the endpoints page never shows it again.
    await page.goto(webhooksPage);
    expect(await page.content()).not.toContain(secret);

    // A test event: the receiver gets it, signed with that secret, and the log shows it delivered with the receiver's answer.
    const card = page.locator(`[data-endpoint="${endpointId}"]`);
    await submit(page, card.locator('[data-send-test]'));
    expect(await page.textContent('.notice.ok')).toContain('A webhook.test event was queued');
    const [test] = await arrived('the test event', 1, (w) => w.payload.type === 'webhook.test');
    expect(test.path).toBe('/console-hook');
    expect(verifyWebhook(test, secret)).toMatchObject({ type: 'webhook.test', data: { endpointId } });
    const row = await seeInLog(page, test.id, 'delivered');
    expect(await row.locator('[data-response]').textContent()).toBe('204');
    await h.screenshot(page, 'webhooks');

    // A replay: a delivery of its own with the same webhook-id and body.
    await submit(page, row.locator('button', { hasText: 'Replay' }));
    expect(await page.textContent('.notice.ok')).toContain(`the same webhook-id ${test.id}`);
    const replays = await arrived('the replay', 2, (w) => w.id === test.id);
    expect(replays[1].body).toBe(test.body);
    expect(() => verifyWebhook(replays[1], secret)).not.toThrow();

    // Rotating the secret: a new one shown once; the next webhook verifies with it (and, for a day, with the old one too).
    await submit(page, page.locator(`[data-endpoint="${endpointId}"] [data-rotate-secret]`));
    const rotated = (await page.textContent('[data-webhook-secret] [data-secret]'))!.trim();
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(secret);
    await page.goto(webhooksPage);
    expect(await page.textContent(`[data-endpoint="${endpointId}"]`)).toContain('the previous secret signs beside the new one until');
    await submit(page, page.locator(`[data-endpoint="${endpointId}"] [data-send-test]`));
    const [afterRotation] = await arrived('the test after the rotation', 1, (w) => w.payload.type === 'webhook.test' && w.id !== test.id);
    expect(() => verifyWebhook(afterRotation, rotated)).not.toThrow();
    expect(() => verifyWebhook(afterRotation, secret)).not.toThrow();
    expect(afterRotation.signatures).toHaveLength(2);
    await seeInLog(page, afterRotation.id, 'delivered');

    // Disable, enable, delete.
    await submit(page, page.locator(`[data-endpoint="${endpointId}"] button`, { hasText: 'Disable' }));
    expect(await page.locator(`[data-endpoint="${endpointId}"] [data-disabled]`).count()).toBe(1);
    await submit(page, page.locator(`[data-endpoint="${endpointId}"] button`, { hasText: 'Enable' }));
    expect(await page.locator(`[data-endpoint="${endpointId}"] [data-enabled]`).count()).toBe(1);
    await submit(page, page.locator(`[data-endpoint="${endpointId}"] button.danger`));
    expect(await page.textContent('.notice.ok')).toContain('deleted');
    expect(await page.locator('[data-endpoint]').count()).toBe(0);
    expect((await h.service.http.get(`/admin/apps/${appId}/webhooks`).set('ManagementKey', MANAGEMENT_KEY)).body).toEqual([]);

    // Every action, in the console app's log with the operator's name.
    const log = await eventually('the console log', () => {
      const rows = consoleLog().filter((r) => r.message.startsWith(`${appId}: `));
      return rows.length >= 8 ? rows : undefined;
    });
    expect(log.every((r) => r.performedBy === 'hooks@example.com')).toBe(true);
    expect(log.map((r) => r.message.slice(appId.length + 2).replace(/ep_[0-9a-f]+|msg_[0-9a-f]+/g, 'ID'))).toEqual([
      'The webhook endpoint ID was added.',
      'A test event was sent to the webhook endpoint ID (ID).',
      'The webhook delivery ID was replayed (ID).',
      'The signing secret of the webhook endpoint ID was rotated.',
      'A test event was sent to the webhook endpoint ID (ID).',
      'The webhook endpoint ID was disabled.',
      'The webhook endpoint ID was enabled.',
      'The webhook endpoint ID was deleted.',
    ]);
    expect(JSON.stringify(log)).not.toContain(secret);
  });

  it('filters the FIDO metadata by certification status and puts an authenticator on the allow list', async () => {
    const { page } = await h.operator('lists@example.com');
    const listsPage = `${h.origin}/console/apps/${appId}/authenticators`;
    await page.goto(listsPage);
    await page.selectOption('[data-status-filter] select[name=status]', 'FIDO_CERTIFIED_L1');
    await submit(page, page.locator('[data-status-filter] button'));
    expect(page.url()).toBe(`${listsPage}?status=FIDO_CERTIFIED_L1`);
    const rows = page.locator('[data-entries] tr[data-aaguid]');
    expect(await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-aaguid')))).toEqual([KEYS.compromised, KEYS.trusted]);
    await submit(page, page.locator(`[data-entries] tr[data-aaguid="${KEYS.trusted}"] button`, { hasText: 'Allow' }));
    expect(page.url()).toBe(`${listsPage}?status=FIDO_CERTIFIED_L1`);
    expect(await page.textContent('.notice.ok')).toContain('Put on the allow list.');
    expect(await page.locator(`[data-list="allowed"] tr[data-aaguid="${KEYS.trusted}"]`).count()).toBe(1);
    await submit(page, page.locator(`[data-entries] tr[data-aaguid="${KEYS.compromised}"] button`, { hasText: 'Block' }));
    expect(await page.locator(`[data-list="blocked"] tr[data-aaguid="${KEYS.compromised}"]`).count()).toBe(1);
    await h.screenshot(page, 'authenticators');
  });

  it('shows the service’s health', async () => {
    const { page } = await h.operator('health@example.com');
    await submit(page, page.locator('header nav a[href="/console/health"]'));
    expect(page.url()).toBe(`${h.origin}/console/health`);
    const statuses = await page.locator('[data-health] tr[data-check]').evaluateAll((trs) => Object.fromEntries(trs.map((tr) => [tr.getAttribute('data-check'), tr.getAttribute('data-status')])));
    expect(statuses).toEqual({ storage: 'Healthy', mail: 'Healthy', redis: 'Off', webhooks: 'Healthy', metadata: 'Healthy', version: 'Healthy' });
    expect(await page.textContent('[data-check="webhooks"]')).toContain('This process sends webhooks.');
    await h.screenshot(page, 'health');
  });
});
