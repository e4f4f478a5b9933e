import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Browser, BrowserContext, CDPSession, Page } from 'playwright-core';
import { CLI, childEnv, startServiceProcess, type ServiceProcess } from '../../support/serviceProcess';
import type { TestDatabase } from '../../support/testService';
import { MANAGEMENT_KEY } from '../../support/testService';
import { addVirtualAuthenticator, launchChromium, requireChromium } from './chromium';

const run = promisify(execFile);
const IMAGES = join(__dirname, '..', '..', '..', 'docs', 'images');

/** One browser with its own virtual authenticator: an operator's device. */
export interface OperatorDevice {
  context: BrowserContext;
  page: Page;
  cdp: CDPSession;
  authenticatorId: string;
}

/**
 * A real service process with the console on (PUBLIC_URL http://localhost:<its port>, so that the
 * pages are a secure context), Chromium, and the CLI against the same database, for the console's
 * browser suites.
 */
export interface ConsoleHarness {
  service: ServiceProcess & { database: TestDatabase };
  /** PUBLIC_URL: `http://localhost:<port>`. */
  origin: string;
  browser: Browser;
  /** `passwordless-selfhost console invite <email>` as the operator runs it; answers the link it printed. */
  invite(email: string): Promise<string>;
  /** A fresh browser context with a virtual platform authenticator. */
  device(): Promise<OperatorDevice>;
  /** Opens the invite link on the device and accepts it: the device holds the operator's passkey and is signed in. */
  acceptInvite(device: OperatorDevice, link: string): Promise<void>;
  /** A device of a new operator, invited and signed in (at /console/apps). */
  operator(email: string): Promise<OperatorDevice>;
  /** A full-page screenshot for docs/console.md, taken by the test so that it stays true. */
  screenshot(page: Page, name: string): Promise<void>;
  close(): Promise<void>;
}

export async function startConsoleHarness(env: Record<string, string> = {}): Promise<ConsoleHarness> {
  const executablePath = requireChromium();
  const service = await startServiceProcess({ PUBLIC_URL: 'http://localhost:{port}', CONSOLE: 'on', ...env });
  const origin = `http://localhost:${new URL(service.url).port}`;
  let browser: Browser;
  try {
    browser = await launchChromium(executablePath);
  } catch (error) {
    await service.stop();
    throw error;
  }
  const contexts: BrowserContext[] = [];
  const harness: ConsoleHarness = {
    service,
    origin,
    browser,
    async invite(email) {
      const { stdout } = await run(process.execPath, [CLI, 'console', 'invite', email], {
        env: childEnv({ DATABASE_URL: service.database.url, PUBLIC_URL: origin, MANAGEMENT_KEY, LOG_LEVEL: 'warn', ...env }),
      });
      const link = /(http:\/\/\S+\/console\/invite#token=\S+)/.exec(stdout)?.[1];
      if (!link) throw new Error(`console invite printed no link:\n${stdout}`);
      return link;
    },
    async device() {
      const context = await browser.newContext();
      contexts.push(context);
      const page = await context.newPage();
      const cdp = await context.newCDPSession(page);
      const authenticatorId = await addVirtualAuthenticator(cdp);
      return { context, page, cdp, authenticatorId };
    },
    async acceptInvite(device, link) {
      await device.page.goto(link);
      await device.page.click('[data-accept-invite]');
      await device.page.waitForURL(`${origin}/console/apps`);
    },
    async operator(email) {
      const device = await harness.device();
      await harness.acceptInvite(device, await harness.invite(email));
      return device;
    },
    async screenshot(page, name) {
      await page.screenshot({ path: join(IMAGES, `console-${name}.png`), fullPage: true });
    },
    async close() {
      for (const context of contexts) await context.close().catch(() => undefined);
      await browser.close().catch(() => undefined);
      await service.stop();
    },
  };
  return harness;
}
