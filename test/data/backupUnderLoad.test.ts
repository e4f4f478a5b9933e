/**
 * An online backup of a service under 30 s of registration and sign-in load restores to a
 * database on which every registration answered before the backup began signs in. The load runs
 * to a fixed deadline (and until at least one registration is answered after the backup, so the
 * backup is shown to be a moment, not the end); the backup starts once a set number of
 * registrations have been answered: no step waits on a timer.
 */
import { statSync } from 'node:fs';
import { join, dirname } from 'node:path';
import Database from 'better-sqlite3';
import { sqliteFilename } from '../../src/server/store';
import { registerPasskey, signIn, verifyToken } from '../support/ceremonies';
import { runCli } from '../support/deployment';
import { ensureBuilt, startServiceProcess } from '../support/serviceProcess';
import type { SoftCredential } from '../support/softwareAuthenticator';
import { createTestDatabase } from '../support/testService';

const LOAD_MS = 30_000;
const WORKERS = 3;
/** Registrations answered before the backup starts. */
const BEFORE_BACKUP = 12;
const TIMEOUT_MS = 120_000;
const BUILD_TIMEOUT_MS = 180_000;

// The build (when a source is newer than dist/) takes a while on a loaded machine: not the test's time.
beforeAll(() => ensureBuilt(), BUILD_TIMEOUT_MS);

interface Registration {
  userId: string;
  passkey: SoftCredential;
}

it(
  'a backup taken during 30 s of sign-in load restores to a database where every registration answered before it began signs in',
  async () => {
    const database = await createTestDatabase('sqlite');
    const service = await startServiceProcess({ RATE_LIMITS: 'off' }, database);
    let restored: Awaited<ReturnType<typeof startServiceProcess>> | undefined;
    try {
      const app = await service.createApp();
      const answered: Registration[] = [];
      let answeredBeforeBackup: Registration[] | undefined;
      let backupDone = false;
      /** Registrations begun after the backup ended: certainly not in it. */
      let answeredAfterBackup = 0;
      let signIns = 0;
      let startBackup!: () => void;
      const backupMayStart = new Promise<void>((resolve) => (startBackup = resolve));
      const deadline = Date.now() + LOAD_MS;

      // Each worker registers a user, then signs in its own users in turn (one passkey, one worker: counters never race).
      const worker = async () => {
        const mine: Registration[] = [];
        while (Date.now() < deadline || !backupDone || answeredAfterBackup === 0) {
          const startedAfterBackup = backupDone;
          const { userId, credential, complete } = await registerPasskey(service, app);
          if (complete.status !== 200) throw new Error(`register/complete ${complete.status} ${JSON.stringify(complete.body)}`);
          const registration = { userId, passkey: credential };
          mine.push(registration);
          answered.push(registration);
          if (startedAfterBackup) answeredAfterBackup++;
          if (answered.length === BEFORE_BACKUP) startBackup();
          for (let i = 0; i < 3; i++) {
            const user = mine[(mine.length + i) % mine.length];
            const signin = await signIn(service, app, user.passkey, { userId: user.userId });
            if (signin.complete.status !== 200) throw new Error(`signin/complete ${signin.complete.status} ${JSON.stringify(signin.complete.body)}`);
            if ((await verifyToken(service, app, signin.complete.body.token)).status !== 200) throw new Error('signin/verify failed');
            signIns++;
          }
        }
      };
      const load = Promise.all(Array.from({ length: WORKERS }, worker));

      const backupFile = join(dirname(sqliteFilename(database.url)), 'under-load.backup');
      const backup = backupMayStart.then(async () => {
        answeredBeforeBackup = [...answered];
        const result = await runCli(['backup', backupFile], { DATABASE_URL: database.url });
        backupDone = true;
        return result;
      });
      // A worker that fails ends the test at once instead of leaving the backup waiting.
      const [backupResult] = await Promise.all([backup, load]);
      expect({ code: backupResult.code, stderr: backupResult.stderr }).toEqual({ code: 0, stderr: '' });
      expect(answeredBeforeBackup!.length).toBeGreaterThanOrEqual(BEFORE_BACKUP);
      expect(answeredAfterBackup).toBeGreaterThan(0);
      expect(signIns).toBeGreaterThan(0);
      expect(statSync(backupFile).mode & 0o777).toBe(0o600);

      // Restore with the service stopped, over the database it was taken from, and serve it again.
      await service.stop();
      const restore = await runCli(['restore', backupFile], { DATABASE_URL: database.url });
      expect({ code: restore.code, stderr: restore.stderr }).toEqual({ code: 0, stderr: '' });
      const db = new Database(sqliteFilename(database.url), { readonly: true });
      const credentials = (db.prepare('SELECT count(*) AS n FROM "Credential"').get() as { n: number }).n;
      db.close();
      // A moment of the database: everything answered before it began, not everything there was.
      expect(credentials).toBeGreaterThanOrEqual(answeredBeforeBackup!.length);
      expect(credentials).toBeLessThan(answered.length);

      restored = await startServiceProcess({ RATE_LIMITS: 'off' }, database);
      for (const { userId, passkey } of answeredBeforeBackup!) {
        const { complete } = await signIn(restored, app, passkey, { userId });
        expect({ userId, status: complete.status }).toEqual({ userId, status: 200 });
        expect((await verifyToken(restored, app, complete.body.token)).body).toMatchObject({ success: true, userId });
      }
    } finally {
      await restored?.stop();
      await service.stop();
      await database.drop();
    }
  },
  TIMEOUT_MS,
);
