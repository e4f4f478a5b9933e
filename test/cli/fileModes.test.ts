/**
 * Secrets at rest, on service processes started the way an operator's shell starts them (umask
 * 022): the data directory the service creates is 0700; the SQLite database, its WAL and
 * shared-memory files and MAIL_FILE are 0600; an existing file that is looser is named in a warning.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import supertest from 'supertest';
import { freeLoopbackPort } from '../support/net';
import { CLI, childEnv, ensureBuilt, waitUntilServing } from '../support/serviceProcess';
import { MANAGEMENT_KEY } from '../support/testService';

const PROCESS_TIMEOUT_MS = 120_000;
const TMP = join(__dirname, '..', '..', '.test-tmp');

interface Started {
  http: ReturnType<typeof supertest>;
  output(): string;
  stop(): Promise<void>;
}

/** `node dist/cli.js serve` from a shell whose umask is 022. */
async function serveUnderUmask022(env: Record<string, string>): Promise<Started> {
  const port = await freeLoopbackPort();
  const child: ChildProcessWithoutNullStreams = spawn('/bin/sh', ['-c', 'umask 022 && exec "$0" "$@"', process.execPath, CLI, 'serve'], {
    env: childEnv({ PORT: String(port), HOST: '127.0.0.1', MANAGEMENT_KEY, LOG_LEVEL: 'warn', ...env }),
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await waitUntilServing(`http://127.0.0.1:${port}/health/http`, child, () => output);
  return {
    http: supertest(`http://127.0.0.1:${port}`),
    output: () => output,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

const modeOf = (path: string) => (statSync(path).mode & 0o777).toString(8);

describe('the files the service keeps secrets in', () => {
  let root: string;
  beforeAll(() => ensureBuilt(), PROCESS_TIMEOUT_MS);
  beforeEach(() => {
    mkdirSync(TMP, { recursive: true });
    root = mkdtempSync(join(TMP, 'modes-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it(
    'creates the data directory 0700 and the database, its WAL and shared memory, and MAIL_FILE 0600 under umask 022; warns naming a looser existing file',
    async () => {
      const dataDir = join(root, 'data');
      const database = join(dataDir, 'passwordless.db');
      const mailFile = join(dataDir, 'mail.md');
      const env = { DATABASE_URL: `file:${database}`, MAIL_FILE: mailFile };
      let service = await serveUnderUmask022(env);
      try {
        const created = await service.http.post('/admin/apps/modesapp/create').set('ManagementKey', MANAGEMENT_KEY).send({ adminEmail: 'admin@example.com' });
        expect(created.status).toBe(200);
        // A mail (the deletion warning to the admin) and some writes, so that every file exists.
        expect((await service.http.post('/v3/account/delete').set('ApiSecret', created.body.apiSecret1)).status).toBe(200);
        expect({
          dir: modeOf(dataDir),
          database: modeOf(database),
          wal: modeOf(`${database}-wal`),
          shm: modeOf(`${database}-shm`),
          mail: modeOf(mailFile),
        }).toEqual({ dir: '700', database: '600', wal: '600', shm: '600', mail: '600' });
        expect(service.output()).not.toContain('may be read by other users');
      } finally {
        await service.stop();
      }

      // Files an older version (or a careless copy) left readable: named at start-up.
      chmodSync(database, 0o644);
      chmodSync(mailFile, 0o640);
      service = await serveUnderUmask022(env);
      try {
        const warnings = service
          .output()
          .split('\n')
          .filter((line) => line.includes('may be read by other users'))
          .map((line) => JSON.parse(line) as { path: string; mode: string; level: number });
        expect(warnings).toEqual(
          expect.arrayContaining([expect.objectContaining({ path: database, mode: '644', level: 40 }), expect.objectContaining({ path: mailFile, mode: '640', level: 40 })]),
        );
      } finally {
        await service.stop();
      }
    },
    PROCESS_TIMEOUT_MS,
  );
});
