/**
 * `passwordless-selfhost doctor` (dist/cli.js) against the example host (examples/express-host)
 * and a real service process, through a TLS-terminating reverse proxy of the test's own on
 * loopback: all pass when the host is set up right; one failure line, naming its fix, for a wrong
 * Origins, a wrong RP ID, a host without `trust proxy`, and an app whose allowedOrigins disagree.
 * Also `auth.doctor()`, the same checks from inside a host.
 */
import { spawn } from 'node:child_process';
import supertest from 'supertest';
import { startExampleHost, type ExampleHost } from '../support/exampleHost';
import { runDoctor, type DoctorSettings } from '../../src/express';
import { doctorProof } from '../../src/express/doctor/doctorProof';
import { hostApp } from '../support/hostApp';
import { localhostCertificate, startReverseProxy, type LocalhostCertificate, type ReverseProxy } from '../support/reverseProxy';
import { CLI, childEnv, ensureBuilt, startServiceProcess, type ServiceProcess } from '../support/serviceProcess';
import { MANAGEMENT_KEY, uniqueAppId, type TestApp } from '../support/testService';

jest.setTimeout(120_000);

let service: ServiceProcess;
let certificate: LocalhostCertificate;
const stops: (() => Promise<void>)[] = [];

beforeAll(async () => {
  ensureBuilt();
  service = await startServiceProcess();
  certificate = localhostCertificate();
});
afterAll(async () => {
  for (const stop of stops.reverse()) await stop();
  await service?.stop();
  certificate?.remove();
});

async function appWith(allowedOrigins: string[]): Promise<TestApp> {
  const appId = uniqueAppId();
  const res = await service.http.post(`/admin/apps/${appId}/create`).set('ManagementKey', MANAGEMENT_KEY).send({ adminEmail: 'admin@example.com', allowedOrigins });
  expect(res.status).toBe(200);
  return { appId, apiKey: res.body.apiKey1, apiKey2: res.body.apiKey2, apiSecret: res.body.apiSecret1, apiSecret2: res.body.apiSecret2 };
}

interface Deployment {
  app: TestApp;
  proxy: ReverseProxy;
  host: ExampleHost;
  /** The host's Passwordless__Origins. */
  origins: string;
}

/**
 * The example host behind the TLS proxy (public URL `https://localhost:<port>`), with the
 * Origins and `trust proxy` given (each a function of the public URL), on an app whose
 * allowedOrigins are given too.
 */
async function deploy(options: { origins?: (publicUrl: string) => string; trustProxy?: string; allowedOrigins?: (publicUrl: string) => string[] } = {}): Promise<Deployment> {
  const proxy = await startReverseProxy(certificate);
  stops.push(() => proxy.close());
  const app = await appWith(options.allowedOrigins?.(proxy.url) ?? [proxy.url]);
  const origins = options.origins?.(proxy.url) ?? proxy.url;
  const host = await startExampleHost(service.url, app, { Passwordless__Origins: origins, ...(options.trustProxy ? { EXAMPLE_TRUST_PROXY: options.trustProxy } : {}) });
  stops.push(() => host.stop());
  proxy.setUpstream(host.url);
  return { app, proxy, host, origins };
}

interface DoctorRun {
  code: number | null;
  stdout: string;
  stderr: string;
  lines: string[];
  failures: string[];
}

/** `doctor --url <public URL> --recovery` with the host's settings in the environment, trusting the proxy's certificate. */
function doctor(d: Deployment, args: string[] = []): Promise<DoctorRun> {
  const env = childEnv({
    Passwordless__ApiUrl: service.url,
    Passwordless__ApiKey: d.app.apiKey,
    Passwordless__ApiSecret: d.app.apiSecret,
    Passwordless__Origins: d.origins,
    NODE_EXTRA_CA_CERTS: certificate.certFile,
  });
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, 'doctor', '--url', d.proxy.url, '--recovery', ...args], { env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.once('error', reject);
    child.once('close', (code) => {
      const lines = stdout.split('\n').filter(Boolean);
      resolve({ code, stdout, stderr, lines, failures: lines.filter((l) => l.startsWith('FAIL')) });
    });
  });
}

const CHECKS = ['service', 'clock', 'origins', 'rp-id', 'https', 'mail', 'public-url', 'trust-proxy'];
const checkOf = (line: string) => line.split(/\s+/)[1];

describe('passwordless-selfhost doctor', () => {
  it('passes every check for the example host behind a TLS proxy it trusts, and exits 0', async () => {
    const d = await deploy({ trustProxy: 'loopback' });
    const run = await doctor(d);
    expect({ code: run.code, stderr: run.stderr, failures: run.failures }).toEqual({ code: 0, stderr: '', failures: [] });
    expect(run.lines.map(checkOf)).toEqual(CHECKS);
    expect(run.stdout).toContain(`app '${d.app.appId}'`);
    expect(run.stdout).toContain(`${d.proxy.url} is one of the host's Origins`);
    // Nothing secret is printed.
    expect(run.stdout).not.toContain(d.app.apiSecret);
  });

  it('fails only the public-url check for a host whose Origins name another port, naming the fix', async () => {
    // The service accepts any origin (empty allowedOrigins), so only the host itself is wrong.
    const d = await deploy({ trustProxy: 'loopback', origins: () => 'https://localhost:1', allowedOrigins: () => [] });
    const run = await doctor(d);
    expect(run.code).toBe(1);
    expect(run.failures).toHaveLength(1);
    expect(run.failures[0]).toMatch(/^FAIL\s+public-url\s/);
    expect(run.failures[0]).toContain(`${d.proxy.url} (the public URL) is not one of the host's Origins (https://localhost:1): port mismatch`);
    expect(run.failures[0]).toContain(`Fix: Passwordless__Origins has localhost on port 1 but the page is on port ${new URL(d.proxy.url).port}: list ${d.proxy.url} in Passwordless__Origins`);
  });

  it('fails only the rp-id check for an RP ID the origins do not end with, naming one that fits', async () => {
    const d = await deploy({ trustProxy: 'loopback' });
    const run = await doctor(d, ['--rp-id', 'example.com']);
    expect(run.code).toBe(1);
    expect(run.failures).toEqual([expect.stringMatching(/^FAIL\s+rp-id\s+the RP ID 'example\.com' is neither the host nor a parent domain of https:\/\/localhost:\d+\. Fix: use an RP ID that every origin's host ends with \(such as 'localhost'\)/)]);
  });

  it('fails only the trust-proxy check for a host behind the proxy without trust proxy, naming the setting', async () => {
    const d = await deploy();
    const run = await doctor(d);
    expect(run.code).toBe(1);
    expect(run.failures).toEqual([
      expect.stringMatching(/^FAIL\s+trust-proxy\s+Express sees http while the public URL is https and X-Forwarded-Proto says https: 'trust proxy' is not set\. Fix: app\.set\('trust proxy', 'loopback'\)/),
    ]);
  });

  it("fails only the origins check when the app's allowedOrigins at the service lack the host's origin", async () => {
    const d = await deploy({ trustProxy: 'loopback', allowedOrigins: () => ['https://app.example.com'] });
    const run = await doctor(d);
    expect(run.code).toBe(1);
    expect(run.failures).toEqual([expect.stringMatching(/^FAIL\s+origins\s+the service refuses https:\/\/localhost:\d+ \(origin_not_allowed\) of the host's Origins.*Fix: add them to the app's allowedOrigins/)]);
  });

  it('answers its diagnostic route only to a caller holding the ApiSecret', async () => {
    const d = await deploy({ trustProxy: 'loopback' });
    const res = await supertest(d.host.url).get('/passwordless-doctor');
    expect(res.status).toBe(404);
    const forged = await supertest(d.host.url).get('/passwordless-doctor').set('Passwordless-Doctor', `${Math.floor(Date.now() / 1000)}.${'A'.repeat(43)}`);
    expect(forged.status).toBe(404);
    // The proof with its last character changed to another that decodes to the same bytes.
    const proof = doctorProof(d.app.apiSecret, Date.now());
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const respelled = `${proof.slice(0, -1)}${alphabet[alphabet.indexOf(proof[proof.length - 1]) ^ 1]}`;
    expect((await supertest(d.host.url).get('/passwordless-doctor').set('Passwordless-Doctor', respelled)).status).toBe(404);
    expect((await supertest(d.host.url).get('/passwordless-doctor').set('Passwordless-Doctor', proof)).status).toBe(200);
  });
});

describe('auth.doctor()', () => {
  it("runs the same checks from inside a host, with the middleware's settings", async () => {
    const app = await appWith([]);
    const h = hostApp(service, app, { origins: 'http://localhost:3000' });
    const checks = await h.auth.doctor();
    expect(checks.map((c) => [c.name, c.ok])).toEqual([
      ['service', true],
      ['clock', true],
      ['origins', true],
      ['rp-id', true],
      ['https', true],
      ['mail', true],
    ]);
    const wrong = await h.auth.doctor({ rpId: 'example.com' });
    expect(wrong.filter((c) => !c.ok)).toEqual([expect.objectContaining({ name: 'rp-id', fix: expect.stringContaining("'localhost'") })]);
  });
});

/** runDoctor in this process, on what a misconfigured host would have: each finding and its fix. */
describe('runDoctor: what each misconfiguration reads as', () => {
  const settingsOf = (app: TestApp, changes: Partial<DoctorSettings> = {}): DoctorSettings => ({
    apiUrl: service.url,
    apiKey: app.apiKey,
    apiSecret: app.apiSecret,
    origins: ['http://localhost:3000'],
    publicUrl: undefined,
    register: { expirationSeconds: 120 },
    ...changes,
  });
  const noLinks = { verifyEmail: false, recovery: false };
  const failed = (checks: { name: string; ok: boolean }[]) => checks.filter((c) => !c.ok).map((c) => c.name);

  it('names keys of the wrong kind, and keys of two apps', async () => {
    const [one, two] = [await appWith([]), await appWith([])];
    const swapped = await runDoctor({ settings: settingsOf(one, { apiKey: one.apiSecret, apiSecret: one.apiKey }), mailedLinks: noLinks });
    expect(swapped[0]).toMatchObject({ name: 'service', ok: false, fix: expect.stringContaining("'<appId>:public:") });
    const mixed = await runDoctor({ settings: settingsOf(one, { apiSecret: two.apiSecret }), mailedLinks: noLinks });
    expect(mixed[0]).toMatchObject({ name: 'service', ok: false, summary: expect.stringContaining(`'${two.appId}'`), fix: 'use the two keys of one app' });
  });

  it('names a service that does not answer, and one that refuses the ApiSecret', async () => {
    const app = await appWith([]);
    // Port 1 on loopback: nothing listens there, so the connection is refused at once.
    const down = await runDoctor({ settings: settingsOf(app, { apiUrl: 'http://127.0.0.1:1' }), mailedLinks: noLinks });
    expect(down[0]).toMatchObject({ name: 'service', ok: false, fix: expect.stringContaining('Passwordless__ApiUrl') });
    expect(down.map((c) => c.name)).not.toContain('origins');
    const stale = await runDoctor({ settings: settingsOf(app, { apiSecret: `${app.appId}:secret:${'0'.repeat(32)}` }), mailedLinks: noLinks });
    expect(stale[0]).toMatchObject({ name: 'service', ok: false, summary: expect.stringContaining('refuses the ApiSecret') });
  });

  it('names Origins that are unset, or that the app does not allow', async () => {
    const strict = await appWith(['https://app.example.com']);
    const unset = await runDoctor({ settings: settingsOf(strict, { origins: undefined }), mailedLinks: noLinks });
    expect(unset.find((c) => c.name === 'origins')).toMatchObject({ ok: false, fix: expect.stringContaining('Passwordless__Origins') });
    const refused = await runDoctor({ settings: settingsOf(strict), mailedLinks: noLinks });
    expect(failed(refused)).toEqual(['origins']);
    expect(refused.find((c) => c.name === 'origins')?.fix).toContain(`/admin/apps/${strict.appId}/features`);
    const open = await runDoctor({ settings: settingsOf(await appWith([])), mailedLinks: noLinks });
    expect(open.find((c) => c.name === 'origins')).toMatchObject({ ok: true, summary: expect.stringContaining('accepts any origin') });
    expect(open.find((c) => c.name === 'mail')).toMatchObject({ ok: true, summary: expect.stringContaining('needs no mail') });
  });

  it('names plain HTTP and a mail file for origins on the internet, and a host without its diagnostic route', async () => {
    const app = await appWith(['http://app.example.com']);
    const checks = await runDoctor({ settings: settingsOf(app, { origins: ['http://app.example.com'] }), rpId: 'app.example.com', mailedLinks: { verifyEmail: true, recovery: true }, url: service.url });
    expect(failed(checks)).toEqual(['https', 'mail', 'host']);
    expect(checks.find((c) => c.name === 'mail')?.fix).toContain('SMTP_URL');
    expect(checks.find((c) => c.name === 'host')?.summary).toContain('/passwordless-doctor');
  });
});
