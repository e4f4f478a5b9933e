/**
 * Sign-ins by method: two replicas on one database, one injected clock. Each counts its successful
 * `/signin/verify` calls in memory (a verify writes nothing for it), and a flush adds them to the
 * app's day, so the replicas' counts sum up; `reports.signInMethods` answers them by UTC day of the
 * injected clock, for the app asked about only.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import pino from 'pino';
import supertest from 'supertest';
import { createApp } from '../../src/server/app';
import { loadConfig } from '../../src/server/core/config';
import { createLogger } from '../../src/server/core/logger';
import { DAY_MS, utcDateOf, utcDayOf } from '../../src/server/core/utcDay';
import { createServices, type Services } from '../../src/server/services';
import { SignInTally } from '../../src/server/services/reporting/signInTally';
import { openStore, sqliteFilename } from '../../src/server/store';
import { openSqliteConnection } from '../../src/server/store/sqlite';
import { registerPasskey, signIn, verifyToken, type ServiceHttp } from '../support/ceremonies';
import { expectProblem } from '../support/http';
import type { SoftCredential } from '../support/softwareAuthenticator';
import { MANAGEMENT_KEY, createTestDatabase, providers, uniqueAppId, warnIfPostgresSkipped, type TestApp, type TestDatabase } from '../support/testService';

warnIfPostgresSkipped();

const HOUR = 3_600_000;
const ADMIN = 'admin@example.com';

interface Replica extends ServiceHttp {
  services: Services;
}

describe.each(providers())('sign-ins by method on %s', (provider) => {
  let database: TestDatabase;
  let mailDir: string;
  let replicas: Replica[];
  // Ahead of the real clock, as the daily reports' suite does.
  const DAY0 = utcDayOf(Date.now()) + 2;
  let now = DAY0 * DAY_MS + 10 * HOUR;
  const at = (day: number, hours: number) => {
    now = (DAY0 + day) * DAY_MS + hours * HOUR;
  };
  const date = (day: number) => utcDateOf(DAY0 + day);

  beforeAll(async () => {
    database = await createTestDatabase(provider);
    const tmp = join(__dirname, '..', '..', '.test-tmp');
    mkdirSync(tmp, { recursive: true });
    mailDir = mkdtempSync(join(tmp, 'signin-methods-'));
    const config = loadConfig({ DATABASE_URL: database.url, MANAGEMENT_KEY, LOG_LEVEL: 'silent', MAIL_FILE: join(mailDir, 'mail.md') });
    replicas = [];
    for (let i = 0; i < 2; i++) {
      const store = openStore(config.databaseUrl);
      await store.migrate();
      // flushIntervalMs 0: counts are written only when the test flushes (or a replica closes).
      const services = createServices(config, store, { now: () => now, reportSweepIntervalMs: 0, deletionSweepIntervalMs: 0, metadataRefreshIntervalMs: 0, flushIntervalMs: 0 });
      replicas.push({ services, http: supertest(createApp(services, createLogger('silent'))) });
    }
  });
  afterAll(async () => {
    for (const replica of replicas ?? []) await replica.services.close();
    await database.drop();
    rmSync(mailDir, { recursive: true, force: true });
  });

  async function newApp(prefix: string): Promise<TestApp> {
    const appId = uniqueAppId(prefix);
    const res = await replicas[0].http.post(`/admin/apps/${appId}/create`).set('ManagementKey', MANAGEMENT_KEY).send({ adminEmail: ADMIN });
    expect(res.status).toBe(200);
    return { appId, apiKey: res.body.apiKey1, apiKey2: res.body.apiKey2, apiSecret: res.body.apiSecret1, apiSecret2: res.body.apiSecret2 };
  }

  /** A passkey sign-in's token, verified on `replica`; the verify's answer. */
  async function passkeySignIn(replica: Replica, app: TestApp, who: { credential: SoftCredential; userId: string }) {
    const { complete } = await signIn(replica, app, who.credential, { userId: who.userId });
    expect(complete.status).toBe(200);
    const verified = await verifyToken(replica, app, complete.body.token);
    expect(verified.body).toMatchObject({ success: true, type: 'passkey_signin' });
    return complete.body.token as string;
  }

  async function generatedSignIn(replica: Replica, app: TestApp, userId: string) {
    const generated = await replica.http.post('/signin/generate-token').set('ApiSecret', app.apiSecret).send({ userId });
    expect(generated.status).toBe(200);
    expect((await verifyToken(replica, app, generated.body.token)).body).toMatchObject({ success: true, type: 'generated_signin' });
  }

  /** Mails a magic link (to the admin: the app is new) and returns the token of its link, as the browser would hand it back. */
  async function magicLinkToken(replica: Replica, app: TestApp, userId: string): Promise<string> {
    const sent = await replica.http.post('/magic-links/send').set('ApiSecret', app.apiSecret).send({ emailAddress: ADMIN, urlTemplate: 'https://shop.example.com/login?token=$TOKEN', userId });
    expect(sent.status).toBe(204);
    const entries = readFileSync(join(mailDir, 'mail.md'), 'utf8').split(/^---$/m).filter((e) => e.trim());
    const link = entries[entries.length - 1].split('\n').find((line) => line.startsWith('https://shop.example.com/'));
    return new URL(link!).searchParams.get('token')!;
  }

  const flushBoth = () => Promise.all(replicas.map((r) => r.services.signIns.flush()));
  const rowsOf = (app: TestApp) => replicas[0].services.store.db.signInCount.findMany({ where: { tenant: app.appId } });

  it('counts each successful verify by method on its UTC day, sums the replicas, and answers by period', async () => {
    const shop = await newApp('shop');
    const blog = await newApp('blog');
    at(0, 9);
    const registered = await registerPasskey(replicas[0], shop, { userId: 'ada' });
    expect(registered.complete.status).toBe(200);
    const ada = { credential: registered.credential, userId: 'ada' };
    // A registration's token is no sign-in: verified, and not counted.
    expect((await verifyToken(replicas[0], shop, registered.complete.body.token)).body).toMatchObject({ success: true, type: 'passkey_register' });

    // Day 0, on both replicas: 3 passkey sign-ins, a magic link verified twice, a generated token.
    const used = await passkeySignIn(replicas[0], shop, ada);
    // What fails is not counted: a used token, a token of another app, no token at all.
    expectProblem(await verifyToken(replicas[1], shop, used), 400, 'token_already_used');
    await passkeySignIn(replicas[1], shop, ada);
    at(0, 23.9);
    await passkeySignIn(replicas[1], shop, ada);
    const link = await magicLinkToken(replicas[1], shop, 'ada');
    for (const replica of replicas) expect((await verifyToken(replica, shop, link)).body).toMatchObject({ success: true, type: 'magic_link' });
    await generatedSignIn(replicas[0], shop, 'ada');
    expect((await verifyToken(replicas[0], blog, link)).status).toBeGreaterThanOrEqual(400);
    expect((await verifyToken(replicas[1], shop, 'verify_nonsense')).status).toBeGreaterThanOrEqual(400);

    // Nothing written yet: the verifies touched no row of the table.
    expect(await rowsOf(shop)).toEqual([]);

    // Day 1 (the injected clock's, past UTC midnight): the same magic link once more, a passkey sign-in on the other app.
    at(1, 0.1);
    expect((await verifyToken(replicas[0], shop, link)).body).toMatchObject({ success: true, type: 'magic_link' });
    await generatedSignIn(replicas[1], shop, 'bob');
    const blogUser = await registerPasskey(replicas[1], blog, { userId: 'cy' });
    await passkeySignIn(replicas[1], blog, { credential: blogUser.credential, userId: 'cy' });

    await flushBoth();
    const { reports } = replicas[1].services;
    expect(await reports.signInMethods(shop.appId, {})).toEqual([
      { day: date(0), passkey: 3, magicLink: 2, generatedToken: 1 },
      { day: date(1), passkey: 0, magicLink: 1, generatedToken: 1 },
    ]);
    expect(await reports.signInMethods(blog.appId, {})).toEqual([{ day: date(1), passkey: 1, magicLink: 0, generatedToken: 0 }]);
    // One row per app and day, whichever replicas counted.
    expect(await rowsOf(shop)).toHaveLength(2);

    // The period: from and to inclusive, either open.
    expect(await reports.signInMethods(shop.appId, { from: date(1) })).toEqual([{ day: date(1), passkey: 0, magicLink: 1, generatedToken: 1 }]);
    expect(await reports.signInMethods(shop.appId, { to: date(0) })).toEqual([{ day: date(0), passkey: 3, magicLink: 2, generatedToken: 1 }]);
    expect(await reports.signInMethods(shop.appId, { from: date(0), to: date(0) })).toEqual([{ day: date(0), passkey: 3, magicLink: 2, generatedToken: 1 }]);
    expect(await reports.signInMethods(shop.appId, { from: date(2) })).toEqual([]);

    // A later flush adds to the day (an upsert that adds, not one that replaces); an empty flush changes nothing.
    await passkeySignIn(replicas[0], shop, ada);
    await flushBoth();
    await flushBoth();
    expect(await reports.signInMethods(shop.appId, { from: date(1) })).toEqual([{ day: date(1), passkey: 1, magicLink: 1, generatedToken: 1 }]);
  });

  it('reads what this replica counted without waiting for its flush', async () => {
    const app = await newApp('read');
    at(3, 12);
    await generatedSignIn(replicas[0], app, 'dee');
    expect(await rowsOf(app)).toEqual([]);
    expect(await replicas[0].services.reports.signInMethods(app.appId, {})).toEqual([{ day: date(3), passkey: 0, magicLink: 0, generatedToken: 1 }]);
  });

  it('drops the counts of an app deleted before the flush, and writes the others', async () => {
    const kept = await newApp('kept');
    const gone = await newApp('gone');
    at(4, 8);
    await generatedSignIn(replicas[0], kept, 'eve');
    await generatedSignIn(replicas[0], gone, 'eve');
    await replicas[0].services.store.db.app.delete({ where: { id: gone.appId } });
    await replicas[0].services.signIns.flush();
    expect(await rowsOf(kept)).toEqual([{ tenant: kept.appId, day: date(4), passkey: 0, magicLink: 0, generatedToken: 1 }]);
    expect(await rowsOf(gone)).toEqual([]);
  });

  it('keeps the counts of a write the database refuses, and writes them with the next flush', async () => {
    const app = await newApp('refused');
    at(5, 8);
    await generatedSignIn(replicas[0], app, 'fay');
    await refuseSignInCounts(true);
    try {
      await replicas[0].services.signIns.flush(); // resolves: the failure is logged, the counts kept
    } finally {
      await refuseSignInCounts(false);
    }
    expect(await rowsOf(app)).toEqual([]);
    await generatedSignIn(replicas[0], app, 'fay');
    await replicas[0].services.signIns.flush();
    expect(await rowsOf(app)).toEqual([{ tenant: app.appId, day: date(5), passkey: 0, magicLink: 0, generatedToken: 2 }]);
  });

  it('removes an app’s counts with the app', async () => {
    const app = await newApp('deleted');
    at(6, 8);
    await generatedSignIn(replicas[1], app, 'gus');
    await replicas[1].services.signIns.flush();
    expect(await rowsOf(app)).toHaveLength(1);
    await replicas[1].services.store.db.app.delete({ where: { id: app.appId } });
    expect(await rowsOf(app)).toEqual([]);
  });

  it('holds at most its number of (app, day) pairs between flushes, and logs how many sign-ins it could not count', async () => {
    const apps = [await newApp('one'), await newApp('two'), await newApp('three')];
    const lines: string[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => void lines.push(line) });
    const { store } = replicas[0].services;
    const tally = new SignInTally({ reports: store.repositories({ now: () => now, outboxQuota: 100, logger }).reports, logger, now: () => now, maxPairs: 2 });
    at(7, 8);
    for (const app of apps) for (let i = 0; i < 2; i++) tally.count(app.appId, 'passkey_signin');
    // A pair it holds still counts.
    tally.count(apps[0].appId, 'magic_link');
    await tally.flush();
    const rows = await Promise.all(apps.map(rowsOf));
    expect(rows).toEqual([
      [{ tenant: apps[0].appId, day: date(7), passkey: 2, magicLink: 1, generatedToken: 0 }],
      [{ tenant: apps[1].appId, day: date(7), passkey: 2, magicLink: 0, generatedToken: 0 }],
      [],
    ]);
    expect(lines.map((line) => JSON.parse(line))).toEqual([expect.objectContaining({ dropped: 2, msg: 'sign-in tally full: sign-ins not counted' })]);
    // A flush makes room again.
    tally.count(apps[2].appId, 'generated_signin');
    await tally.flush();
    expect(await rowsOf(apps[2])).toEqual([{ tenant: apps[2].appId, day: date(7), passkey: 0, magicLink: 0, generatedToken: 1 }]);
  });

  /** Makes the database refuse every write to SignInCount (a trigger on SQLite, a constraint on PostgreSQL), or accept them again. */
  async function refuseSignInCounts(refuse: boolean): Promise<void> {
    if (provider === 'sqlite') {
      const db = openSqliteConnection(sqliteFilename(database.url));
      try {
        db.exec(
          refuse
            ? `CREATE TRIGGER "refuse_sign_in_counts" BEFORE INSERT ON "SignInCount" BEGIN SELECT RAISE(ABORT, 'refused by the test'); END`
            : `DROP TRIGGER "refuse_sign_in_counts"`,
        );
      } finally {
        db.close();
      }
      return;
    }
    const client = new Client({ connectionString: database.url });
    await client.connect();
    try {
      await client.query(refuse ? `ALTER TABLE "SignInCount" ADD CONSTRAINT "refuse_sign_in_counts" CHECK (false) NOT VALID` : `ALTER TABLE "SignInCount" DROP CONSTRAINT "refuse_sign_in_counts"`);
    } finally {
      await client.end();
    }
  }
});
