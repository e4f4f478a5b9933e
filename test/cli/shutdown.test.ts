/**
 * Shutdown of the service as operators run it (`node dist/cli.js serve`, what `npm start` runs):
 * SIGTERM/SIGINT stop accepting, in-flight requests finish, idle keep-alive connections do not hold
 * the process, stuck ones are cut at SHUTDOWN_TIMEOUT_MS, buffered writes reach the database, and
 * a log reader that stopped reading neither stops the service nor keeps it alive.
 * No sleeps: every wait is on a process exit, a socket event or a log line.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import supertest from 'supertest';
import { registerPasskey, signIn, verifyToken } from '../support/ceremonies';
import { freeLoopbackPort } from '../support/net';
import { CLI, childEnv, ensureBuilt, waitUntilServing } from '../support/serviceProcess';
import { MANAGEMENT_KEY, createTestDatabase, providers, uniqueAppId, warnIfPostgresSkipped, type TestApp, type TestDatabase } from '../support/testService';

warnIfPostgresSkipped();

const PROCESS_TIMEOUT_MS = 90_000;

interface Served {
  child: ChildProcessWithoutNullStreams;
  url: string;
  port: number;
  stderr(): string;
  /** Resolves with the first stdout line (JSON) whose msg is `msg` (and that `matches`); only when stdout is read. */
  logged(msg: string, matches?: (entry: Record<string, unknown>) => boolean): Promise<Record<string, unknown>>;
  /** Resolves with the exit code, or rejects when the process is still running after `withinMs`. */
  exit(withinMs: number): Promise<number | null>;
}

const running: ChildProcessWithoutNullStreams[] = [];
afterEach(() => {
  for (const child of running.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

/** Starts the service; with `readStdout: false` nobody ever reads its stdout pipe. */
async function serve(database: TestDatabase, env: Record<string, string> = {}, { readStdout = true } = {}): Promise<Served> {
  ensureBuilt();
  const port = await freeLoopbackPort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, [CLI, 'serve'], {
    env: childEnv({ DATABASE_URL: database.url, PORT: String(port), HOST: '127.0.0.1', MANAGEMENT_KEY, LOG_LEVEL: 'info', MAIL_FILE: `${database.url.replace(/^file:/, '')}.mail.md`, ...env }),
  });
  running.push(child);
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  let stdoutClosed = false;
  child.stdout.once('close', () => (stdoutClosed = true));
  if (readStdout) child.stdout.on('data', (chunk) => (stdout += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  await waitUntilServing(`${url}/health/http`, child, () => stdout + stderr);
  return {
    child,
    url,
    port,
    stderr: () => stderr,
    logged(msg, matches = () => true) {
      const find = () =>
        stdout
          .split('\n')
          .filter((line) => line.startsWith('{'))
          .map((line) => JSON.parse(line) as Record<string, unknown>)
          .find((entry) => entry.msg === msg && matches(entry));
      return new Promise((resolve, reject) => {
        const check = () => {
          const entry = find();
          if (entry) {
            child.stdout.off('data', check);
            resolve(entry);
          }
          return entry;
        };
        if (check()) return;
        child.stdout.on('data', check);
        const giveUp = () => {
          if (!check()) reject(new Error(`no '${msg}' line in the output:\n${stdout}${stderr}`));
        };
        if (stdoutClosed) giveUp();
        else child.stdout.once('close', giveUp);
      });
    },
    exit(withinMs) {
      return new Promise((resolve, reject) => {
        const deadline = setTimeout(() => reject(new Error(`still running ${withinMs} ms after the signal:\n${stdout}${stderr}`)), withinMs);
        exited.then((code) => {
          clearTimeout(deadline);
          resolve(code);
        }, reject);
      });
    },
  };
}

async function createApp(url: string): Promise<TestApp> {
  const appId = uniqueAppId('stop');
  const res = await fetch(`${url}/admin/apps/${appId}/create`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ManagementKey: MANAGEMENT_KEY },
    body: JSON.stringify({ adminEmail: 'admin@example.com' }),
  });
  const body = (await res.json()) as Record<string, string>;
  return { appId, apiKey: body.apiKey1, apiKey2: body.apiKey2, apiSecret: body.apiSecret1, apiSecret2: body.apiSecret2 };
}

/** Reads from a raw connection until `done(received)` holds or the connection closes. */
function readUntil(socket: Socket, done: (received: string) => boolean): Promise<string> {
  return new Promise((resolve) => {
    let received = '';
    const finish = () => {
      socket.off('data', onData);
      socket.off('close', finish);
      resolve(received);
    };
    const onData = (chunk: Buffer) => {
      received += chunk.toString('latin1');
      if (done(received)) finish();
    };
    socket.on('data', onData);
    socket.once('close', finish);
  });
}

const closed = (socket: Socket) => new Promise<void>((resolve) => (socket.destroyed ? resolve() : socket.once('close', () => resolve())));

/**
 * A request the service has started (it answered `100 Continue`) whose body is still to come: an
 * in-flight request held open for as long as the test likes.
 */
async function requestAwaitingItsBody(port: number, app: TestApp, body: string): Promise<{ socket: Socket; sendBody(): Promise<string> }> {
  const socket = connect(port, '127.0.0.1');
  socket.write(
    [
      'POST /register/token HTTP/1.1',
      'Host: 127.0.0.1',
      `ApiSecret: ${app.apiSecret}`,
      'Content-Type: application/json',
      `Content-Length: ${Buffer.byteLength(body)}`,
      'Expect: 100-continue',
      '',
      '',
    ].join('\r\n'),
  );
  const interim = await readUntil(socket, (received) => received.includes('\r\n\r\n'));
  expect(interim).toMatch(/^HTTP\/1\.1 100 Continue/);
  return {
    socket,
    async sendBody() {
      const answer = readUntil(socket, (received) => {
        const [head, rest] = [received.slice(0, received.indexOf('\r\n\r\n')), received.slice(received.indexOf('\r\n\r\n') + 4)];
        const length = /content-length: (\d+)/i.exec(head);
        return length !== null && Buffer.byteLength(rest, 'latin1') >= Number(length[1]);
      });
      socket.write(body);
      return answer;
    },
  };
}

describe('shutdown', () => {
  let database: TestDatabase;
  beforeEach(async () => {
    database = await createTestDatabase('sqlite');
  });
  afterEach(async () => {
    await database.drop();
  });

  it(
    'keeps answering while nobody reads its stdout pipe, exits 0 on SIGTERM, and reports the log lines it dropped',
    async () => {
      const service = await serve(database, {}, { readStdout: false });
      // Each answer is logged as one line of about 330 bytes: 5000 of them are more than the
      // pipe, the reader's buffer and the service's own 1 MiB log buffer together hold.
      const path = `/${'x'.repeat(200)}`;
      const REQUESTS = 5000;
      const statuses = new Map<number, number>();
      let next = 0;
      await Promise.all(
        Array.from({ length: 16 }, async () => {
          while (next < REQUESTS) {
            next += 1;
            const res = await fetch(`${service.url}${path}`);
            await res.arrayBuffer();
            statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          }
        }),
      );
      expect(Object.fromEntries(statuses)).toEqual({ 404: REQUESTS });
      expect((await fetch(`${service.url}/health/http`)).status).toBe(200);

      service.child.kill('SIGTERM');
      expect(await service.exit(10_000)).toBe(0);
      // stdout was still full at exit, so the count went to stderr.
      const report = service
        .stderr()
        .split('\n')
        .filter((line) => line.includes('log lines dropped'))
        .map((line) => JSON.parse(line) as { dropped: number });
      expect(report).toHaveLength(1);
      expect(report[0].dropped).toBeGreaterThan(0);
      expect(report[0].dropped).toBeLessThan(REQUESTS);
    },
    PROCESS_TIMEOUT_MS,
  );

  it(
    'lets a request in flight at SIGTERM finish with its normal answer, then exits 0',
    async () => {
      const service = await serve(database);
      const app = await createApp(service.url);
      const request = await requestAwaitingItsBody(service.port, app, JSON.stringify({ userId: 'in-flight', username: 'in-flight@example.com' }));

      service.child.kill('SIGTERM');
      await service.logged('shutting down');
      // No longer accepting: a new connection is refused.
      const refused = await new Promise<string | undefined>((resolve) => {
        const probe = connect(service.port, '127.0.0.1');
        probe.once('connect', () => probe.destroy() && resolve(undefined));
        probe.once('error', (error: NodeJS.ErrnoException) => resolve(error.code));
      });
      expect(refused).toBe('ECONNREFUSED');

      const answer = await request.sendBody();
      expect(answer).toMatch(/^HTTP\/1\.1 200 OK/);
      expect(answer).toMatch(/\r\nconnection: close\r\n/i);
      expect(answer).toMatch(/"token":"register_/);
      expect(await service.exit(10_000)).toBe(0);
      expect(await service.logged('stopped')).toMatchObject({ forced: false, clean: true });
    },
    PROCESS_TIMEOUT_MS,
  );

  it(
    'is not held by an idle keep-alive connection',
    async () => {
      const service = await serve(database, { SHUTDOWN_TIMEOUT_MS: '60000' });
      const socket = connect(service.port, '127.0.0.1');
      socket.write('GET /health/http HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
      const answer = await readUntil(socket, (received) => received.endsWith('Healthy'));
      expect(answer).toMatch(/^HTTP\/1\.1 200 OK[\s\S]*keep-alive/i);

      const signalled = Date.now();
      service.child.kill('SIGTERM');
      expect(await service.exit(10_000)).toBe(0);
      await closed(socket);
      expect(Date.now() - signalled).toBeLessThan(10_000);
      expect(await service.logged('stopped')).toMatchObject({ forced: false, clean: true });
    },
    PROCESS_TIMEOUT_MS,
  );

  it(
    'cuts a client that never finishes its request at SHUTDOWN_TIMEOUT_MS and exits 0',
    async () => {
      const service = await serve(database, { SHUTDOWN_TIMEOUT_MS: '300' });
      const app = await createApp(service.url);
      const stuck = await requestAwaitingItsBody(service.port, app, JSON.stringify({ userId: 'stuck', username: 'stuck@example.com' }));

      service.child.kill('SIGTERM');
      await closed(stuck.socket);
      expect(await service.exit(10_000)).toBe(0);
      expect(await service.logged('shutdown deadline reached: open connections were cut')).toMatchObject({ timeoutMs: 300 });
      expect(await service.logged('stopped')).toMatchObject({ forced: true, clean: true });
      // Its access line says it was cut.
      expect(await service.logged('request', (entry) => entry.path === '/register/token')).toMatchObject({ method: 'POST', aborted: true });
    },
    PROCESS_TIMEOUT_MS,
  );

  it(
    'exits at once, non-zero, on a second signal while waiting for a stuck client',
    async () => {
      const service = await serve(database, { SHUTDOWN_TIMEOUT_MS: '60000' });
      const app = await createApp(service.url);
      await requestAwaitingItsBody(service.port, app, JSON.stringify({ userId: 'stuck', username: 'stuck@example.com' }));

      service.child.kill('SIGTERM');
      await service.logged('shutting down');
      service.child.kill('SIGINT');
      expect(await service.exit(10_000)).toBe(130);
      expect(await service.logged('second signal: exiting at once')).toMatchObject({ signal: 'SIGINT' });
    },
    PROCESS_TIMEOUT_MS,
  );
});

describe.each(providers())('shutdown on %s', (provider) => {
  it(
    'writes the buffered events first: after a restart the event log shows the sign-in made just before SIGTERM',
    async () => {
      const database = await createTestDatabase(provider);
      try {
        const first = await serve(database);
        const app = await createApp(first.url);
        const features = await fetch(`${first.url}/admin/apps/${app.appId}/features`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', ManagementKey: MANAGEMENT_KEY },
          body: JSON.stringify({ eventLoggingIsEnabled: true }),
        });
        expect(features.status).toBe(204);
        const svc = { http: supertest(first.url) };
        const { credential, userId } = await registerPasskey(svc, app);
        const { complete } = await signIn(svc, app, credential, { userId });
        expect((await verifyToken(svc, app, complete.body.token)).status).toBe(200);
        // At once: the event log's one-second timer has most likely not written these yet.
        first.child.kill('SIGTERM');
        expect(await first.exit(15_000)).toBe(0);
        // It stopped by finishing its close, not because its writer thread went idle and let the process end early.
        expect(await first.logged('stopped')).toMatchObject({ forced: false, clean: true });

        const second = await serve(database);
        const events = await supertest(second.url).get('/events?pageNumber=1').set('ApiSecret', app.apiSecret);
        expect(events.status).toBe(200);
        const types = (events.body.events as { eventType: string }[]).map((e) => e.eventType);
        expect(types).toEqual(expect.arrayContaining(['ApiUserSignInCompleted', 'ApiUserSignInVerified']));
        second.child.kill('SIGTERM');
        expect(await second.exit(15_000)).toBe(0);
      } finally {
        await database.drop();
      }
    },
    PROCESS_TIMEOUT_MS,
  );
});
