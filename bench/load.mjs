// The load generator: a child process of run.mjs (pinned to its own core), driving one target
// with autocannon per request from run.mjs and answering with the summary of each run.
import autocannon from 'autocannon';
import pg from 'pg';
import { readFileSync } from 'node:fs';
import { Pool } from 'undici';
import { assertion, attestation, signerOf } from './authenticator.mjs';

const RPID = 'localhost';
const ORIGIN = 'https://localhost';
const json = { 'content-type': 'application/json' };
const MINT_CONCURRENCY = 32;
const MAX_POOL = 400_000;

/** CPU time (user + system) a process has used so far, ms; undefined without /proc. */
function cpuMsOf(pid) {
  try {
    // Fields 14 and 15 of /proc/PID/stat, after the parenthesised command name, in clock ticks (100 per second on Linux).
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}

/**
 * The CPU time of the PostgreSQL server's backends for the service's database (the server runs on
 * this machine, so their CPU is in /proc), by process id, ms. Backends come and go (the pools close
 * idle connections), so a run counts every backend found after it, from zero for one that was not
 * there before; one gone before the end is missed.
 */
async function databaseCpu(database) {
  if (!database) return undefined;
  const client = new pg.Client({ connectionString: database.adminUrl });
  await client.connect();
  try {
    const { rows } = await client.query('SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [database.name]);
    return new Map(rows.map(({ pid }) => [pid, cpuMsOf(pid) ?? 0]));
  } finally {
    await client.end();
  }
}
const databaseCpuMsBetween = (before, after) => (before && after ? [...after].reduce((sum, [pid, ms]) => sum + ms - (before.get(pid) ?? 0), 0) : undefined);

/**
 * One autocannon run; the numbers run.mjs reports. The server's CPU time per request is beside
 * the rate: when another process takes the core, the rate drops but the CPU per request does not.
 */
async function measure(target, requests, seconds, connections) {
  const cpuBefore = target.pid ? cpuMsOf(target.pid) : undefined;
  const databaseBefore = await databaseCpu(target.database);
  const result = await autocannon({ url: target.url, connections, duration: seconds, requests });
  const cpuAfter = target.pid ? cpuMsOf(target.pid) : undefined;
  const databaseAfter = await databaseCpu(target.database);
  const cpuMs = cpuBefore === undefined || cpuAfter === undefined ? undefined : cpuAfter - cpuBefore;
  const perRequest = (ms) => (ms === undefined || result.requests.total === 0 ? undefined : (ms * 1000) / result.requests.total);
  return {
    cpuUsPerRequest: perRequest(cpuMs),
    databaseCpuUsPerRequest: perRequest(databaseCpuMsBetween(databaseBefore, databaseAfter)),
    seconds,
    requestsPerSecond: result.requests.average,
    total: result.requests.total,
    p50: result.latency.p50,
    p99: result.latency.p99,
    p999: result.latency.p99_9,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
  };
}

/** The service's requests answered so far, from its /metrics (every route, every status). */
async function serviceRequestsOf(url) {
  const text = await (await fetch(`${url}/metrics`)).text();
  let total = 0;
  for (const line of text.split('\n')) if (line.startsWith('passwordless_http_requests_total{') && !line.includes('route="/metrics"')) total += Number(line.split(' ').at(-1));
  return total;
}

/**
 * The full host sign-in, as a browser and the host make it: the service's signin/begin and
 * complete (what the browser client sends), then the host's POST /passwordless-login with the
 * token, which verifies it at the service and opens a session in the host's store (Set-Cookie).
 * Autocannon drives one origin, so this one is a loop of its own: `connections` sign-ins in
 * flight, each a sequence of three requests, until the time is up. The CPU is both processes'.
 */
async function measureHostSignin(target, state, seconds, connections) {
  const service = new Pool(target.url, { connections });
  const host = new Pool(target.host.url, { connections });
  const post = async (pool, path, headers, body) => {
    const { statusCode, headers: answered, body: stream } = await pool.request({ method: 'POST', path, headers: { ...json, ...headers }, body: JSON.stringify(body) });
    const text = await stream.text();
    return { statusCode, answered, text };
  };
  const cpuOf = () => (cpuMsOf(target.pid) ?? Number.NaN) + (cpuMsOf(target.host.pid) ?? Number.NaN);
  const latencies = [];
  let non2xx = 0;
  let errors = 0;
  let next = 0;
  const requestsBefore = await serviceRequestsOf(target.url);
  const cpuBefore = cpuOf();
  const started = performance.now();
  const deadline = started + seconds * 1000;
  const signIn = async (signer) => {
    const begun = await post(service, '/signin/begin', { ApiKey: target.keys.apiKey }, { userId: signer.userId, RPID, Origin: ORIGIN });
    if (begun.statusCode !== 200) return false;
    const { session, data } = JSON.parse(begun.text);
    const completed = await post(service, '/signin/complete', { ApiKey: target.keys.apiKey }, { session, response: assertion(signer, { challenge: data.challenge, rpId: RPID, origin: ORIGIN }), RPID, Origin: ORIGIN });
    if (completed.statusCode !== 200) return false;
    const login = await post(host, '/passwordless-login', { 'x-forwarded-proto': 'https', host: 'localhost' }, { token: JSON.parse(completed.text).token });
    return login.statusCode === 200 && String(login.answered['set-cookie'] ?? '').includes('connect.sid=');
  };
  const worker = async () => {
    const signer = state.signers[next++ % state.signers.length];
    while (performance.now() < deadline) {
      const at = performance.now();
      try {
        if (await signIn(signer)) latencies.push(performance.now() - at);
        else non2xx++;
      } catch {
        errors++;
      }
    }
  };
  await Promise.all(Array.from({ length: connections }, worker));
  const elapsed = (performance.now() - started) / 1000;
  const cpuMs = cpuOf() - cpuBefore;
  const serviceRequests = (await serviceRequestsOf(target.url)) - requestsBefore;
  await Promise.all([service.close(), host.close()]);
  const sorted = latencies.sort((a, b) => a - b);
  const at = (q) => (sorted.length === 0 ? undefined : Math.round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]));
  const total = sorted.length;
  return {
    cpuUsPerRequest: total === 0 ? undefined : (cpuMs * 1000) / total,
    serviceRequestsPerSignIn: total === 0 ? undefined : serviceRequests / (total + non2xx),
    seconds,
    requestsPerSecond: total / elapsed,
    total,
    p50: at(0.5),
    p99: at(0.99),
    p999: at(0.999),
    non2xx,
    errors,
    timeouts: 0,
  };
}

/**
 * Single-use tokens minted before a timed run (through the service's own endpoint, outside the
 * measured window), at least as many as the run can use at the rate last seen.
 */
async function mintPool(target, size, mint) {
  const tokens = [];
  let next = 0;
  const worker = async () => {
    while (next < size) {
      const i = next++;
      const res = await fetch(target.url + mint.path, { method: 'POST', headers: { ...json, ...mint.headers }, body: JSON.stringify(mint.body(i)) });
      if (!res.ok) throw new Error(`minting ${mint.path}: ${res.status} ${await res.text()}`);
      tokens.push((await res.json()).token);
    }
  };
  await Promise.all(Array.from({ length: MINT_CONCURRENCY }, worker));
  return tokens;
}

let uniqueSeq = 0;
const unique = (prefix) => `${prefix}-${process.pid}-${Date.now().toString(36)}-${uniqueSeq++}`;

/** The request sequence one connection repeats, per scenario. `state` lives across a scenario's runs. */
function flow(scenario, target, state) {
  const { keys } = target;
  switch (scenario.kind) {
    case 'get':
      return [{ method: 'GET', path: scenario.path, headers: scenario.headers ?? {} }];
    case 'echo':
      return [{ method: 'POST', path: scenario.path, headers: json, body: JSON.stringify({ userId: 'bench-user', username: 'bench@example.com' }) }];
    case 'registerToken':
      return [
        {
          method: 'POST',
          path: '/register/token',
          headers: { ...json, ApiSecret: keys.apiSecret },
          setupRequest: (req) => ({ ...req, body: JSON.stringify({ userId: unique('rt'), username: 'bench@example.com' }) }),
        },
      ];
    case 'signin': {
      // The service's flow (ApiKey, session token) or the bare harness's (the challenge itself).
      const harness = scenario.harness === true;
      const signers = state.signers;
      let nextSigner = 0;
      return [
        {
          method: 'POST',
          path: '/signin/begin',
          headers: harness ? json : { ...json, ApiKey: keys.apiKey },
          setupRequest: (req, context) => {
            context.signer ??= signers[nextSigner++ % signers.length];
            return { ...req, body: JSON.stringify(harness ? { userId: context.signer.userId } : { userId: context.signer.userId, RPID, Origin: ORIGIN }) };
          },
          onResponse: (status, body, context) => {
            context.begin = status === 200 ? JSON.parse(body) : undefined;
          },
        },
        {
          method: 'POST',
          path: '/signin/complete',
          headers: harness ? json : { ...json, ApiKey: keys.apiKey },
          setupRequest: (req, context) => {
            const challenge = (harness ? context.begin?.challenge : context.begin?.data?.challenge) ?? 'none';
            const response = assertion(context.signer, { challenge, rpId: RPID, origin: ORIGIN });
            return { ...req, body: JSON.stringify(harness ? { challenge, response } : { session: context.begin?.session ?? 'none', response, RPID, Origin: ORIGIN }) };
          },
        },
      ];
    }
    case 'verify':
      return [
        {
          method: 'POST',
          path: '/signin/verify',
          headers: { ...json, ApiSecret: keys.apiSecret },
          setupRequest: (req) => ({ ...req, body: JSON.stringify({ token: state.pool[state.used++] ?? 'exhausted' }) }),
        },
      ];
    case 'register':
      return [
        {
          method: 'POST',
          path: '/register/begin',
          headers: { ...json, ApiKey: keys.apiKey },
          setupRequest: (req) => ({ ...req, body: JSON.stringify({ token: state.pool[state.used++] ?? 'exhausted', RPID, Origin: ORIGIN }) }),
          onResponse: (status, body, context) => {
            context.begin = status === 200 ? JSON.parse(body) : undefined;
          },
        },
        {
          method: 'POST',
          path: '/register/complete',
          headers: { ...json, ApiKey: keys.apiKey },
          setupRequest: (req, context) => {
            const response = attestation({ challenge: context.begin?.data?.challenge ?? 'none', rpId: RPID, origin: ORIGIN });
            return { ...req, body: JSON.stringify({ session: context.begin?.session ?? 'none', response, RPID, Origin: ORIGIN }) };
          },
        },
      ];
    default:
      throw new Error(`unknown scenario kind ${scenario.kind}`);
  }
}

/** What mints the single-use tokens a scenario consumes (one per iteration of its flow). */
function minterOf(scenario, target) {
  if (scenario.kind === 'verify') {
    return { path: '/signin/generate-token', headers: { ApiSecret: target.keys.apiSecret }, body: () => ({ userId: 'bench-verify', timeToLive: 3600 }) };
  }
  if (scenario.kind === 'register') {
    return { path: '/register/token', headers: { ApiSecret: target.keys.apiSecret }, body: () => ({ userId: unique('reg'), username: 'bench@example.com' }) };
  }
  return undefined;
}

/** Warm-up, then the timed runs, with fresh tokens before each where the scenario needs them. */
async function runScenario({ scenario, target, warmupSeconds, runs, runSeconds, connections }) {
  const state = { signers: target.credentialsFile ? JSON.parse(readFileSync(target.credentialsFile, 'utf8')).map(signerOf) : [], pool: [], used: 0 };
  const minter = minterOf(scenario, target);
  let rate = scenario.expectedRate ?? 3000;
  const timed = async (seconds) => {
    if (minter) {
      state.pool = await mintPool(target, Math.min(MAX_POOL, Math.ceil(rate * seconds * 1.5) + 500), minter);
      state.used = 0;
    }
    const result = scenario.kind === 'hostSignin' ? await measureHostSignin(target, state, seconds, connections) : await measure(target, flow(scenario, target, state), seconds, connections);
    if (minter) result.tokensLeft = Math.max(0, state.pool.length - state.used);
    rate = Math.max(rate, result.requestsPerSecond);
    return result;
  };
  if (warmupSeconds > 0) await timed(warmupSeconds);
  const results = [];
  for (let i = 0; i < runs; i++) results.push(await timed(runSeconds));
  return results;
}

process.on('message', (message) => {
  runScenario(message).then(
    (results) => process.send({ ok: true, results }),
    (error) => process.send({ ok: false, error: String(error?.stack ?? error) }),
  );
});
