import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { outputOf, type ChildResult } from './childProcess';
import { registerPasskey, signIn, verifyToken, type ServiceHttp } from './ceremonies';
import { keyIdOf } from './http';
import { CLI, childEnv, ensureBuilt, type ServiceProcess } from './serviceProcess';
import type { SoftCredential } from './softwareAuthenticator';
import { MANAGEMENT_KEY, type TestApp } from './testService';

/** A deployment's customers as a test knows them: each app with its users and their passkeys. */
export interface Deployment {
  apps: { app: TestApp; users: { userId: string; passkeys: SoftCredential[] }[] }[];
  /** The app whose deletion is scheduled. */
  scheduled: TestApp;
}

const ok = (what: string, status: number, expected: number, body?: unknown) => {
  if (status !== expected) throw new Error(`${what}: ${status} ${JSON.stringify(body)}`);
};

/**
 * Fills a running service through its API as customers would, so every table has rows: two apps
 * with event logging on, users with passkeys (one with two) and aliases (one unhashed), a locked
 * key, a custom purpose that has been used, verified sign-ins, a sign-in left half-way, a magic
 * link sent, and the second app's deletion scheduled.
 */
export async function seedDeployment(svc: ServiceProcess): Promise<Deployment> {
  const admin = (path: string, body?: object) => svc.http.post(path).set('ManagementKey', MANAGEMENT_KEY).send(body ?? {});
  const deployment: Deployment = { apps: [], scheduled: undefined as unknown as TestApp };
  for (const [index, size] of [4, 2].entries()) {
    const app = await svc.createApp();
    const features = await admin(`/admin/apps/${app.appId}/features`, { eventLoggingIsEnabled: true });
    ok('features', features.status, 204, features.body);
    const users: Deployment['apps'][number]['users'] = [];
    for (let i = 0; i < size; i++) {
      const { userId, credential, complete } = await registerPasskey(svc, app, { aliases: [`user${i}@app${index}.example.com`], aliasHashing: i !== 1 });
      ok('register/complete', complete.status, 200, complete.body);
      users.push({ userId, passkeys: [credential] });
    }
    const second = await registerPasskey(svc, app, { userId: users[0].userId });
    ok('second passkey', second.complete.status, 200, second.complete.body);
    users[0].passkeys.push(second.credential);
    const secret = (path: string, body: object) => svc.http.post(path).set('ApiSecret', app.apiSecret).send(body);
    const purpose = await secret('/auth-configs/add', { purpose: 'checkout', timeToLive: '00:05:00', userVerificationRequirement: 'required', performedBy: 'seed' });
    ok('auth-configs/add', purpose.status, 201, purpose.body);
    for (const user of users) {
      const signin = await signIn(svc, app, user.passkeys[0], { userId: user.userId, purpose: 'checkout' });
      ok('signin/complete', signin.complete.status, 200, signin.complete.body);
      ok('signin/verify', (await verifyToken(svc, app, signin.complete.body.token)).status, 200);
    }
    const halfway = await svc.http.post('/signin/begin').set('ApiKey', app.apiKey).send({ userId: users[1].userId, RPID: 'app.example.com', Origin: 'https://app.example.com' });
    ok('signin/begin', halfway.status, 200, halfway.body);
    const mail = await secret('/magic-links/send', { emailAddress: 'admin@example.com', urlTemplate: 'https://shop.example.com/?t=$TOKEN', userId: users[0].userId });
    ok('magic-links/send', mail.status, 204, mail.body);
    ok('lock key', (await admin(`/admin/apps/${app.appId}/api-keys/${keyIdOf(app.apiKey2)}/lock`)).status, 204);
    deployment.apps.push({ app, users });
  }
  deployment.scheduled = deployment.apps[1].app;
  const marked = await admin(`/admin/apps/${deployment.scheduled.appId}/mark-delete`, { deletedBy: 'ops@example.com' });
  ok('mark-delete', marked.status, 200, marked.body);
  return deployment;
}

/** Signs every passkey of every user in, once, through `svc`; returns the verify tokens, not yet verified. */
export async function signInEveryone(svc: ServiceHttp, deployment: Deployment): Promise<{ app: TestApp; userId: string; token: string }[]> {
  const tokens = [];
  for (const { app, users } of deployment.apps) {
    for (const { userId, passkeys } of users) {
      for (const passkey of passkeys) {
        const { complete } = await signIn(svc, app, passkey, { userId });
        ok(`sign-in of ${userId}`, complete.status, 200, complete.body);
        tokens.push({ app, userId, token: complete.body.token as string });
      }
    }
  }
  return tokens;
}

/**
 * A client that keeps signing the users in (and verifying) one after another until `until()` says
 * stop, then resolves with how many it did; it stops at the first refusal and reports it.
 */
export async function keepSigningIn(svc: ServiceHttp, deployment: Deployment, until: () => boolean): Promise<{ signIns: number; failure?: string }> {
  const everyone = deployment.apps.flatMap(({ app, users }) => users.map((user) => ({ app, ...user })));
  let signIns = 0;
  do {
    const { app, userId, passkeys } = everyone[signIns % everyone.length];
    const { complete } = await signIn(svc, app, passkeys[0], { userId });
    if (complete.status !== 200) return { signIns, failure: `signin/complete ${complete.status} ${JSON.stringify(complete.body)}` };
    const verified = await verifyToken(svc, app, complete.body.token);
    if (verified.status !== 200) return { signIns, failure: `signin/verify ${verified.status} ${JSON.stringify(verified.body)}` };
    signIns++;
  } while (!until());
  return { signIns };
}

/** The command line as an operator runs it (`node dist/cli.js …`), with only `env` of its own. */
export function runCli(args: string[], env: Record<string, string> = {}): Promise<ChildResult> {
  ensureBuilt();
  return outputOf(spawn(process.execPath, [CLI, ...args], { env: childEnv({ LOG_LEVEL: 'warn', ...env }) }));
}

/** The snapshot id a `data copy` printed. */
export function snapshotIdIn(stdout: string): string {
  const match = /^snapshot {2}(\S+)$/m.exec(stdout);
  if (!match) throw new Error(`no snapshot id in:\n${stdout}`);
  return match[1];
}

/** The path and query of the cancel link in the last deletion warning the service mailed for `appId`. */
export function abortLinkFor(svc: ServiceProcess, appId: string): string {
  const links = readFileSync(svc.mailFile, 'utf8').match(new RegExp(`https?://[^\\s]*/apps/delete/cancel/${appId}\\?token=[^\\s)>"]+`, 'g'));
  if (!links) throw new Error(`no cancel link for ${appId} in ${svc.mailFile}`);
  return new URL(links[links.length - 1]).pathname + new URL(links[links.length - 1]).search;
}

/** The per-table lines of a `data copy` report: every model of the schema, each `equal` on both sides. */
export function expectEveryTableEqual(stdout: string, models: string[]): void {
  const lines = stdout.split('\n');
  const start = lines.findIndex((line) => line.startsWith('table '));
  const rows = lines.slice(start + 1, lines.indexOf('', start)).map((line) => /^(\S+)\s+(\d+)\s+(\d+)\s+[0-9a-f]{16} {2}equal$/.exec(line));
  expect(rows.every(Boolean)).toBe(true);
  expect(rows.map((m) => m![1]).sort()).toEqual([...models].sort());
  for (const m of rows) expect(m![2]).toBe(m![3]);
}

/**
 * What users and operators of a moved deployment must find: every verify token issued before the
 * move verifies (spread over the replicas), and every user signs in with every one of their old
 * passkeys (by user id, and by alias) on every replica.
 */
export async function expectDeploymentServed(replicas: ServiceProcess[], deployment: Deployment, tokens: { app: TestApp; userId: string; token: string }[]): Promise<void> {
  for (const [i, { app, userId, token }] of tokens.entries()) {
    const verified = await verifyToken(replicas[i % replicas.length], app, token);
    expect({ status: verified.status, success: verified.body.success, userId: verified.body.userId }).toEqual({ status: 200, success: true, userId });
  }
  for (const replica of replicas) {
    for (const [index, { app, users }] of deployment.apps.entries()) {
      for (const [i, { userId, passkeys }] of users.entries()) {
        for (const [k, passkey] of passkeys.entries()) {
          const byAlias = k === 0 && i < 2;
          const { complete } = await signIn(replica, app, passkey, byAlias ? { alias: `user${i}@app${index}.example.com` } : { userId });
          expect({ user: userId, status: complete.status }).toEqual({ user: userId, status: 200 });
          const verified = await verifyToken(replica, app, complete.body.token);
          expect({ status: verified.status, userId: verified.body.userId }).toEqual({ status: 200, userId });
        }
      }
    }
  }
}
