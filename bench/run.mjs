#!/usr/bin/env node
// `npm run bench`: the service against the bare stack it is built on, in the same run.
// Method and targets: docs/performance.md.
//
//   node bench/run.mjs [--quick] [--soak SECONDS] [--postgres URL] [--only a,b] [--no-build]
import { execFileSync, fork, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus, tmpdir, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { newCredential } from './authenticator.mjs';
import { countCredentials, seedCredentials } from './seed.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const { values: args } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    soak: { type: 'string' },
    postgres: { type: 'string' },
    only: { type: 'string' },
    'no-build': { type: 'boolean', default: false },
    'cpu-prof': { type: 'string' },
  },
});

const CONNECTIONS = 50;
const WARMUP_SECONDS = args.quick ? 1 : 5;
const RUNS = args.quick ? 1 : 3;
const RUN_SECONDS = args.quick ? 3 : 10;
const SOAK_SECONDS = Number(args.soak ?? (args.quick ? 5 : 60));
const SIGNERS = 64; // more than the connections, so no two connections sign with one key at a time
const SMALL = 1_000;
const LARGE = 100_000;
const RPID = 'localhost';
const ORIGIN = 'https://localhost';
const only = args.only ? new Set(args.only.split(',')) : undefined;
const wanted = (name) => !only || only.has(name);

const TASKSET = spawnSync('taskset', ['-c', '0', 'true']).status === 0;
const pinned = (core, command, commandArgs) => (TASKSET ? ['taskset', ['-c', String(core), command, ...commandArgs]] : [command, commandArgs]);

const log = (line) => process.stderr.write(`${line}\n`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** A server process pinned to core 0, ready once `readyPath` answers. */
async function startServer(name, script, env, readyPath = '/') {
  const port = await freePort();
  const [command, commandArgs] = pinned(0, process.execPath, [...(args['cpu-prof'] && name === 'service' ? ['--cpu-prof', '--cpu-prof-dir', args['cpu-prof']] : []), script]);
  const child = spawn(command, commandArgs, { cwd: ROOT, env: { PATH: process.env.PATH, NODE_ENV: 'production', ...env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr = (stderr + chunk).slice(-4000);
  });
  const url = `http://127.0.0.1:${port}`;
  for (let attempt = 0; attempt < 300; attempt++) {
    if (child.exitCode !== null) throw new Error(`${name} exited (${child.exitCode}): ${stderr}`);
    try {
      if ((await fetch(url + readyPath)).status < 500) {
        return {
          name,
          url,
          pid: child.pid,
          async stop() {
            if (child.exitCode !== null) return;
            const exited = new Promise((r) => child.once('exit', r));
            child.kill('SIGTERM');
            const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
            await exited;
            clearTimeout(timer);
          },
        };
      }
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  child.kill('SIGKILL');
  throw new Error(`${name} did not become ready: ${stderr}`);
}

/** Resident memory of a process, MB. */
const rssOf = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;

/** The load generator, a child pinned to core 1 (`taskset -c 1 node bench/load.mjs`). */
function startLoader() {
  const child = TASKSET
    ? fork(join(ROOT, 'bench', 'load.mjs'), [], { execPath: 'taskset', execArgv: ['-c', '1', process.execPath] })
    : fork(join(ROOT, 'bench', 'load.mjs'));
  return {
    run(message) {
      return new Promise((resolve, reject) => {
        child.once('message', (reply) => (reply.ok ? resolve(reply.results) : reject(new Error(reply.error))));
        child.send(message);
      });
    },
    stop: () => child.kill(),
  };
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};

function summarise(runs) {
  return {
    requestsPerSecond: median(runs.map((r) => r.requestsPerSecond)),
    p50: median(runs.map((r) => r.p50)),
    p99: median(runs.map((r) => r.p99)),
    p999: median(runs.map((r) => r.p999)),
    cpuUsPerRequest: median(runs.map((r) => r.cpuUsPerRequest ?? Number.NaN)),
    non2xx: runs.reduce((n, r) => n + r.non2xx + r.errors + r.timeouts, 0),
    runs,
  };
}

async function measure(loader, scenario, target, runs = RUNS, warmupSeconds = WARMUP_SECONDS, runSeconds = RUN_SECONDS) {
  log(`  ${scenario.name} ...`);
  const result = summarise(await loader.run({ scenario, target, warmupSeconds, runs, runSeconds, connections: CONNECTIONS }));
  log(`  ${scenario.name}: ${Math.round(result.requestsPerSecond)} req/s, ${Math.round(result.cpuUsPerRequest)} µs CPU/req, p99 ${result.p99} ms, non-2xx ${result.non2xx}`);
  return { name: scenario.name, ...result };
}

/**
 * A service scenario and its baseline, run by run in alternation (baseline, service, baseline,
 * ...), so that each pair meets the same machine: on a shared VM another tenant can slow a core by
 * a third for tens of seconds. The ratio is the median of the pairs' ratios.
 */
async function measurePaired(loader, scenario, target, baseline) {
  log(`  ${scenario.name} (paired with ${baseline.id}) ...`);
  const serviceRuns = [];
  const baselineRuns = [];
  // Single-use tokens are minted for the rate last seen: carry it from run to run (never below the loader's default).
  let expectedRate = 3000;
  for (let i = 0; i < RUNS; i++) {
    const warmupSeconds = i === 0 ? WARMUP_SECONDS : 0;
    const once = { warmupSeconds, runs: 1, runSeconds: RUN_SECONDS, connections: CONNECTIONS };
    baselineRuns.push(...(await loader.run({ scenario: baseline.scenario, target: baseline.target, ...once })));
    const [run] = await loader.run({ scenario: { ...scenario, expectedRate }, target, ...once });
    serviceRuns.push(run);
    expectedRate = Math.max(expectedRate, run.requestsPerSecond);
  }
  const result = { name: scenario.name, ...summarise(serviceRuns), baselineName: baseline.id, baseline: summarise(baselineRuns) };
  result.ratio = median(serviceRuns.map((run, i) => run.requestsPerSecond / baselineRuns[i].requestsPerSecond));
  log(`  ${scenario.name}: ${Math.round(result.requestsPerSecond)} req/s, ${Math.round(result.cpuUsPerRequest)} µs CPU/req, p99 ${result.p99} ms, non-2xx ${result.non2xx}; ${baseline.id} ${Math.round(result.baseline.requestsPerSecond)} req/s; ratio ${result.ratio.toFixed(2)}`);
  return result;
}

async function withServer(name, script, env, readyPath, use) {
  const server = await startServer(name, script, env, readyPath);
  try {
    return await use(server);
  } finally {
    await server.stop();
  }
}

async function createPostgresDatabase(adminUrl) {
  const name = `pwl_bench_${Date.now().toString(36)}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await c.end();
    },
  };
}

async function main() {
  if (!args['no-build']) {
    log('building ...');
    execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  }
  if (args['cpu-prof']) mkdirSync(args['cpu-prof'], { recursive: true });
  const tmp = mkdtempSync(join(tmpdir(), 'pwl-bench-'));
  const postgres = args.postgres ? await createPostgresDatabase(args.postgres) : undefined;
  const databaseUrl = postgres?.url ?? `file:${join(tmp, 'service.db')}`;
  const signers = Array.from({ length: SIGNERS }, (_, i) => newCredential(`bench-user-${i}`));
  const credentialsFile = join(tmp, 'credentials.json');
  writeFileSync(credentialsFile, JSON.stringify(signers));
  const loader = startLoader();
  const baselines = {};
  const results = {};
  const memory = {};
  const servers = [];
  try {
    // The baselines, each its own process pinned like the service, kept running beside it so that
    // each service scenario alternates with its own (the idle one costs the core nothing).
    const BASELINES = {
      B0: { name: 'B0 node:http hello', script: 'bench/baselines/nodeHello.mjs', ready: '/', scenario: { kind: 'get', path: '/' } },
      B1: { name: 'B1 Express hello', script: 'bench/baselines/expressHello.mjs', ready: '/', scenario: { kind: 'get', path: '/' } },
      B2: { name: 'B2 Express JSON echo', script: 'bench/baselines/expressEcho.mjs', ready: '/nothing', scenario: { kind: 'echo', path: '/echo' } },
      B3: {
        name: 'B3 bare sign-in harness',
        script: 'bench/baselines/signinHarness.mjs',
        ready: '/nothing',
        env: { HARNESS_DB: join(tmp, 'harness.db'), HARNESS_CREDENTIALS: credentialsFile },
        scenario: { kind: 'signin', harness: true },
      },
    };
    // Which baseline each service scenario is paired with.
    const PAIRS = {
      'health/http': 'B1',
      'register/token': 'B2',
      'signin/begin+complete 1k': 'B3',
      'signin/verify': 'B2',
      'credentials/list': 'B2',
      'register/begin+complete': 'B3',
      'signin/begin+complete 100k': 'B3',
    };
    const running = {};
    const baselineFor = async (id) => {
      if (!running[id]) {
        const { name, script, ready, env = {}, scenario } = BASELINES[id];
        const server = await startServer(id, script, env, ready);
        servers.push(server);
        running[id] = { id, scenario: { name, ...scenario }, target: { url: server.url, pid: server.pid, credentialsFile } };
      }
      return running[id];
    };
    // B0 has no scenario of its own: it shows what the machine can do at all.
    if (wanted('B0')) {
      const b0 = await baselineFor('B0');
      baselines.B0 = await measure(loader, b0.scenario, b0.target);
    }

    log(`service on ${postgres ? 'PostgreSQL' : 'SQLite'}:`);
    const managementKey = randomBytes(24).toString('base64url');
    // Rate limits stay in the path (their cost is part of a request) but out of reach: all the load
    // comes from one address, far above the per-address defaults.
    const unreachable = '100000000';
    const limits = Object.fromEntries(['PUBLIC_PER_IP', 'PUBLIC_PER_APP', 'PRIVATE_PER_IP', 'PRIVATE_PER_APP', 'AUTH_FAILURES_PER_IP', 'AUTH_FAILURES_PER_APP'].map((name) => [`RATE_LIMIT_${name}`, unreachable]));
    const env = { DATABASE_URL: databaseUrl, MANAGEMENT_KEY: managementKey, MAIL_FILE: join(tmp, 'mail.md'), ...limits };
    await withServer('service', 'dist/cli.js', env, '/health/http', async (service) => {
      const created = await fetch(`${service.url}/admin/apps/bench/create`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ManagementKey: managementKey },
        body: JSON.stringify({ adminEmail: 'bench@example.com' }),
      });
      if (!created.ok) throw new Error(`creating the app: ${created.status} ${await created.text()}`);
      const app = await created.json();
      const target = { url: service.url, pid: service.pid, keys: { apiKey: app.apiKey1, apiSecret: app.apiSecret1 }, credentialsFile };
      await seedCredentials(databaseUrl, { tenant: 'bench', signers, count: SMALL, rpId: RPID, origin: ORIGIN });
      memory.startMb = rssOf(service.pid);

      const scenario = async (name, definition) => {
        if (wanted(name)) results[name] = await measurePaired(loader, { name, ...definition }, target, await baselineFor(PAIRS[name]));
      };
      await scenario('health/http', { kind: 'get', path: '/health/http' });
      await scenario('register/token', { kind: 'registerToken' });
      await scenario('signin/begin+complete 1k', { kind: 'signin' });
      await scenario('signin/verify', { kind: 'verify' });
      await scenario('credentials/list', { kind: 'get', path: `/credentials/list?userId=${signers[0].userId}`, headers: { ApiSecret: app.apiSecret1 } });
      // Registrations add credentials, so they run after the 1 000-credential sign-in.
      await scenario('register/begin+complete', { kind: 'register' });
      if (wanted('signin/begin+complete 100k')) {
        const existing = await countCredentials(databaseUrl);
        await seedCredentials(databaseUrl, { tenant: 'bench', signers: [], fillerKey: signers[0].publicKey, count: Math.max(0, LARGE - existing), firstFiller: SMALL, rpId: RPID, origin: ORIGIN });
        memory.credentialsAtLarge = await countCredentials(databaseUrl);
        await scenario('signin/begin+complete 100k', { kind: 'signin' });
      }
      memory.afterMb = rssOf(service.pid);
      if (SOAK_SECONDS > 0) {
        log(`  soak: sign-ins for ${SOAK_SECONDS} s ...`);
        // RSS sampled every second: one reading lands anywhere in a GC cycle (tens of MB apart here),
        // so growth is judged on the medians of the soak's first and last ten seconds.
        const samples = [];
        const sampler = setInterval(() => samples.push(rssOf(service.pid)), 1000);
        try {
          results.soak = { name: 'soak (sign-in)', ...summarise(await loader.run({ scenario: { name: 'soak', kind: 'signin' }, target, warmupSeconds: 0, runs: 1, runSeconds: SOAK_SECONDS, connections: CONNECTIONS })) };
        } finally {
          clearInterval(sampler);
        }
        memory.afterSoakMb = rssOf(service.pid);
        const window = Math.max(1, Math.min(10, Math.floor(samples.length / 3)));
        if (samples.length > 0) memory.soakMedianMb = { first: median(samples.slice(0, window)), last: median(samples.slice(-window)), seconds: window, samples: samples.map(Math.round) };
      }
    });
    // Each baseline's own row: all the runs it made beside the service.
    for (const id of ['B1', 'B2', 'B3']) {
      const runs = Object.values(results).filter((r) => r.baselineName === id).flatMap((r) => r.baseline.runs);
      if (runs.length > 0) baselines[id] = { name: BASELINES[id].name, ...summarise(runs) };
    }
  } finally {
    loader.stop();
    await Promise.all(servers.map((server) => server.stop()));
    await postgres?.drop();
    rmSync(tmp, { recursive: true, force: true });
  }
  report({ baselines, results, memory });
}

/** The table, ratios and PASS/FAIL against the targets (docs/performance.md); the JSON beside it. */
function report({ baselines, results, memory }) {
  const rows = [];
  const checks = [];
  const check = (what, pass, detail) => checks.push({ what, pass, detail });
  const row = (name, r, target) => {
    if (r) rows.push({ ...r, name, target });
  };
  for (const b of Object.values(baselines)) row(b.name, b);
  row('health/http', results['health/http'], '>= 0.7');
  row('register/token', results['register/token'], '>= 0.5');
  row('register/begin+complete', results['register/begin+complete']);
  row('signin/begin+complete 1k', results['signin/begin+complete 1k'], '>= 0.6, p99 <= 2x');
  row('signin/begin+complete 100k', results['signin/begin+complete 100k'], '>= 0.9 x 1k');
  row('signin/verify', results['signin/verify'], '>= 0.5');
  row('credentials/list', results['credentials/list']);
  row('soak (sign-in)', results.soak);

  const get = (name) => rows.find((r) => r.name === name);
  const at = (name, min) => get(name)?.ratio !== undefined && check(`${name} >= ${min} x ${get(name).baselineName}`, get(name).ratio >= min, get(name).ratio.toFixed(2));
  at('health/http', 0.7);
  at('register/token', 0.5);
  at('signin/verify', 0.5);
  at('signin/begin+complete 1k', 0.6);
  const [small, large] = [get('signin/begin+complete 1k'), get('signin/begin+complete 100k')];
  // Both against the bare harness they ran beside, so a noisy minute in one of them does not decide.
  if (small?.ratio && large?.ratio) {
    const growth = large.ratio / small.ratio;
    check('signin at 100k >= 0.9 x signin at 1k (each as a ratio to B3)', growth >= 0.9, `${large.ratio.toFixed(2)} / ${small.ratio.toFixed(2)} = ${growth.toFixed(2)}`);
  }
  if (small?.baseline) check('signin p99 <= 2 x B3 p99', small.p99 <= 2 * small.baseline.p99, `${small.p99} ms vs ${small.baseline.p99} ms`);
  const service = rows.filter((r) => !/^B\d/.test(r.name));
  check('zero non-2xx under load', service.every((r) => r.non2xx === 0), service.filter((r) => r.non2xx > 0).map((r) => `${r.name}: ${r.non2xx}`).join(', ') || '0');
  // After a --quick run the heap is still growing to its working size (about 30 s of sign-ins here), so no verdict then.
  const soak = memory.soakMedianMb;
  if (soak && !args.quick) check(`RSS growth < 10 % over the soak (medians of its first and last ${soak.seconds} s)`, soak.last < soak.first * 1.1, `${soak.first.toFixed(0)} -> ${soak.last.toFixed(0)} MB`);

  const pad = (v, n) => String(v).padStart(n);
  const lines = [
    `${'scenario'.padEnd(30)}${pad('req/s', 9)}${pad('cpu µs', 8)}${pad('p50', 7)}${pad('p99', 7)}${pad('p99.9', 7)}${pad('non2xx', 8)}  vs  ${pad('its req/s', 9)} ${pad('ratio', 6)}  target`,
    ...rows.map(
      (r) =>
        `${r.name.padEnd(30)}${pad(Math.round(r.requestsPerSecond), 9)}${pad(Number.isFinite(r.cpuUsPerRequest) ? Math.round(r.cpuUsPerRequest) : '', 8)}${pad(r.p50, 7)}${pad(r.p99, 7)}${pad(r.p999, 7)}${pad(r.non2xx, 8)}  ${(r.baselineName ?? '').padEnd(3)} ${pad(r.baseline ? Math.round(r.baseline.requestsPerSecond) : '', 9)} ${pad(r.ratio === undefined ? '' : r.ratio.toFixed(2), 6)}  ${r.target ?? ''}`,
    ),
    '',
    `RSS: ${memory.startMb?.toFixed(0)} MB at start, ${memory.afterMb?.toFixed(0)} MB after the scenarios${memory.afterSoakMb ? `, ${memory.afterSoakMb.toFixed(0)} MB after a ${SOAK_SECONDS} s soak` : ''}` +
      (memory.soakMedianMb ? ` (soak medians: ${memory.soakMedianMb.first.toFixed(0)} MB first ${memory.soakMedianMb.seconds} s, ${memory.soakMedianMb.last.toFixed(0)} MB last)` : '') +
      (memory.credentialsAtLarge ? `; ${memory.credentialsAtLarge} credentials in the large sign-in` : ''),
    ...(args.postgres ? ['PostgreSQL is held to the same targets as SQLite.'] : []),
    ...checks.map((c) => `${c.pass ? 'PASS' : 'FAIL'}  ${c.what} (${c.detail})`),
  ];
  process.stdout.write(`\n${lines.join('\n')}\n`);

  const machine = { cpus: cpus().length, cpu: cpus()[0]?.model, memoryGb: Math.round(totalmem() / 2 ** 30), node: process.version, taskset: TASKSET };
  const method = { connections: CONNECTIONS, warmupSeconds: WARMUP_SECONDS, runs: RUNS, runSeconds: RUN_SECONDS, soakSeconds: SOAK_SECONDS, quick: args.quick, database: args.postgres ? 'postgresql' : 'sqlite' };
  const dir = join(ROOT, 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, `${JSON.stringify({ machine, method, rows, memory, checks }, null, 2)}\n`);
  process.stdout.write(`\n${file}\n`);
}

main().catch((error) => {
  process.stderr.write(`${error.stack ?? error}\n`);
  process.exit(1);
});
