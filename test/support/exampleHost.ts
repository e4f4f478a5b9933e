import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { childEnv, ensureBuilt } from './serviceProcess';
import type { TestApp } from './testService';

export interface ExampleHost {
  url: string;
  /** The host's own data directory (its users, sessions and session secret). */
  dataDir: string;
  /** What the process wrote to stdout and stderr so far. */
  output(): string;
  stop(): Promise<void>;
}

const LISTENING = /^listening (http:\/\/127\.0\.0\.1:\d+)\n/m;

export interface ExampleHostOptions {
  /** The script that starts the host, beside this file. Default: the express-host example's. */
  script?: string;
  /** A data directory of the caller's (kept at stop), e.g. to start the host again on it. Default: a fresh one, removed at stop. */
  dataDir?: string;
}

/**
 * The example host app (`createHost` of examples/express-host/host.mjs, an ES module jest cannot
 * load; or another example's, through `options.script`) in a child process, on a fresh data
 * directory and a port the system picks, talking to the service at `serviceUrl` with `app`'s keys.
 * Resolves once it has said where it listens.
 */
export async function startExampleHost(serviceUrl: string, app: Pick<TestApp, 'apiKey' | 'apiSecret'>, env: Record<string, string> = {}, options: ExampleHostOptions = {}): Promise<ExampleHost> {
  ensureBuilt(); // the host loads the middleware as a user does: passwordless-selfhost/express, from dist/
  const ownDataDir = options.dataDir === undefined;
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'pwl-example-host-'));
  const child = spawn(process.execPath, [join(__dirname, options.script ?? 'exampleHostServer.mjs')], {
    env: childEnv({ Passwordless__ApiUrl: serviceUrl, Passwordless__ApiKey: app.apiKey, Passwordless__ApiSecret: app.apiSecret, EXAMPLE_DATA_DIR: dataDir, ...env }),
  });
  let output = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk;
      const match = LISTENING.exec(output);
      if (match) resolve(match[1]);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (chunk: Buffer) => (output += chunk));
    child.once('error', reject);
    void exited.then(() => reject(new Error(`the example host exited before serving:\n${output}`)));
  }).catch((error: unknown) => {
    child.kill('SIGKILL');
    if (ownDataDir) rmSync(dataDir, { recursive: true, force: true });
    throw error;
  });
  return {
    url,
    dataDir,
    output: () => output,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
        await exited;
        clearTimeout(timer);
      }
      if (ownDataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
