import type { Test } from 'supertest';
import { ERROR_CODES } from '../../src/server/core/errorCodes';
import { documentedOperations } from '../../src/server/openapi/document';
import type { RouteSpec } from '../../src/server/http/routing/routeSpec';
import type { Db } from '../../src/server/store';
import { APP_TABLES, populateApp } from '../support/appData';
import { ORIGIN, RPID, signIn } from '../support/ceremonies';
import { caseSeed, prng } from '../support/fuzz';
import { body, ceremonyBody, headersOf, json, pathOf, queryOf, sample, type Body, type Operation, type World } from '../support/fuzzRequests';
import type { SoftCredential } from '../support/softwareAuthenticator';
import { MANAGEMENT_KEY, providers, startTestService, warnIfPostgresSkipped, type TestService } from '../support/testService';
import { metadataEnv, testBlob, writeBlob } from '../support/metadata';
import { createTestPki, type TestPki } from '../support/testPki';

/**
 * Every operation of the OpenAPI document (so a new route is fuzzed without touching this file)
 * gets generated malformed paths, query strings, headers and bodies. Whatever is sent: never a
 * 5xx, every error an application/problem+json with an errorCode of the dictionary, and not one
 * row of another app changed. FUZZ_RUNS (cases per operation) and FUZZ_SEED make longer or other
 * runs; a failure names the seed and case that reproduce it.
 */

const RUNS = Number(process.env.FUZZ_RUNS ?? 12);
const SEED = Number(process.env.FUZZ_SEED ?? 20261123);
/** PostgreSQL is slower per request; it gets a third of the cases (at least one per operation). */
const runsOn = (provider: string) => (provider === 'sqlite' ? RUNS : Math.max(1, Math.ceil(RUNS / 3)));

interface Failure {
  label: string;
  request: string;
  status: number;
  contentType: string | undefined;
  body: string;
}

type Rows = Record<string, { expiresAt?: unknown }[]>;

/** Every row of every table that holds `appId`'s data. */
async function rowsOf(db: Db, appId: string): Promise<Rows> {
  const rows: Rows = {};
  for (const table of APP_TABLES) {
    const where = table === 'app' ? { id: appId } : { tenant: appId };
    rows[table] = await (db[table] as unknown as { findMany(args: { where: object }): Promise<object[]> }).findMany({ where });
  }
  return rows;
}

/**
 * The rows as sorted text, without those expired by `at` (a redeemed token the
 * background sweep may drop during a long run, which is no change made by a request).
 */
function comparable(rows: Rows, at: number): Record<string, string[]> {
  const live = (row: { expiresAt?: unknown }) => {
    const expiresAt = row.expiresAt as { getTime?: () => number } | null | undefined;
    return typeof expiresAt?.getTime !== 'function' || expiresAt.getTime() > at;
  };
  return Object.fromEntries(
    Object.entries(rows).map(([table, list]) => [table, list.filter(live).map((row) => JSON.stringify(row, (_k, v) => (typeof v === 'bigint' ? v.toString() : v))).sort()]),
  );
}

/** Writes what the service buffers (event log, purpose usage, sign-in counts), so a snapshot sees everything. */
async function flushBuffers(svc: TestService): Promise<void> {
  await svc.services.events.flush();
  await svc.services.authConfigs.flushUsage();
  await svc.services.signIns.flush();
}

async function buildWorld(svc: TestService): Promise<World> {
  const [a, b, c] = [await svc.createApp(), await svc.createApp(), await svc.createApp()];
  const cKeys = await svc.http.get(`/admin/apps/${c.appId}/api-keys`).set('ManagementKey', MANAGEMENT_KEY);
  const tokens: string[] = [];
  const people: { userId: string; credential: SoftCredential }[] = [];
  for (const app of [a, b]) {
    const { credential, userId } = await populateApp(svc, app);
    people.push({ userId, credential });
    const registerToken = (await svc.http.post('/register/token').set('ApiSecret', app.apiSecret).send({ userId, username: userId })).body.token as string;
    const session = (await svc.http.post('/register/begin').set('ApiKey', app.apiKey).send({ token: registerToken, RPID, Origin: ORIGIN })).body.session as string;
    const verifyToken = (await signIn(svc, app, credential, { userId })).complete.body.token as string;
    tokens.push(registerToken, session, verifyToken);
  }
  return {
    a,
    b,
    c,
    cKeyIds: (cKeys.body as { id: string }[]).map((k) => k.id),
    aUserId: people[0].userId,
    bUserId: people[1].userId,
    aCredential: people[0].credential,
    bCredentialId: people[1].credential.idB64,
    tokens,
    bTokens: tokens.slice(3),
    aliases: [`${a.appId}@example.com`, `${b.appId}@example.com`],
    bAlias: `${b.appId}@example.com`,
  };
}

/** C again after a fuzzed management call deleted it, so that later cases reach an app that exists. */
async function reviveManagementTarget(svc: TestService, world: World): Promise<void> {
  if (await svc.services.store.db.app.findUnique({ where: { id: world.c.appId } })) return;
  world.c = await svc.createApp({ appId: world.c.appId });
  const keys = await svc.http.get(`/admin/apps/${world.c.appId}/api-keys`).set('ManagementKey', MANAGEMENT_KEY);
  world.cKeyIds = (keys.body as { id: string }[]).map((k) => k.id);
}


/** What is wrong with a success: a status the route does not declare, or JSON of another shape than its declared answer. */
function successBreach(route: RouteSpec | undefined, status: number, contentType: string | undefined, responseBody: unknown): string | undefined {
  const declared = route?.responses[status];
  if (!declared) return `an undocumented ${status}`;
  if (!declared.schema) return undefined;
  if (!contentType?.startsWith('application/json')) return `a ${status} that is not JSON`;
  const parsed = declared.schema.safeParse(responseBody);
  return parsed.success ? undefined : `a ${status} whose body is not the documented shape: ${parsed.error.issues.map((i) => `${i.path.join('.')} ${i.message}`).join('; ')}`;
}

/** What is wrong with an answer, if anything. */
function contractBreach(operation: Operation, route: RouteSpec | undefined, status: number, contentType: string | undefined, responseBody: { errorCode?: unknown; status?: unknown } | undefined): string | undefined {
  if (status >= 500) return 'a server error';
  if (status < 400) return successBreach(route, status, contentType, responseBody);
  // A status the operation documents with another media type (the abort link's HTML page).
  const declared = operation.responses[String(status)]?.content;
  if (declared && !('application/problem+json' in declared) && contentType !== undefined && Object.keys(declared).some((type) => contentType.startsWith(type))) return undefined;
  if (contentType !== 'application/problem+json') return 'an error that is not application/problem+json';
  if (typeof responseBody?.errorCode !== 'string' || !(responseBody.errorCode in ERROR_CODES)) return 'a problem without an errorCode of the dictionary';
  if (responseBody.status !== status) return "a problem whose status is not the answer's";
  return undefined;
}

function send(svc: TestService, method: string, url: string, headers: Record<string, string>, requestBody: Body | undefined): Test {
  let request = (svc.http as unknown as Record<string, (url: string) => Test>)[method](url);
  for (const [name, value] of Object.entries(headers)) request = request.set(name, value);
  if (requestBody) {
    if (requestBody.contentType) request = request.set('Content-Type', requestBody.contentType);
    if (requestBody.encoding) request = request.set('Content-Encoding', requestBody.encoding);
    request = request.send(requestBody.text);
  }
  return request;
}

const contentTypeOf = (headers: Record<string, string>) => headers['content-type'];

const shorten = (text: string) => (text.length > 300 ? `${text.slice(0, 300)}… (${text.length} characters)` : text);

describe.each(providers())('fuzzing every operation of the OpenAPI document on %s', (provider) => {
  warnIfPostgresSkipped();
  let svc: TestService;
  let world: World;
  let pki: TestPki;

  beforeAll(async () => {
    // FIDO metadata loaded, so the /mds listings and registration's checks have entries to work on.
    pki = createTestPki();
    // The limiter stays in the path, with limits no fuzz run reaches: the suite sends hundreds of
    // wrong keys from one address by design (the limits have their own suite, rateLimits.test.ts).
    const unreachable = '100000000';
    svc = await startTestService(provider, {
      RATE_LIMIT_PUBLIC_PER_IP: unreachable,
      RATE_LIMIT_PUBLIC_PER_APP: unreachable,
      RATE_LIMIT_PRIVATE_PER_IP: unreachable,
      RATE_LIMIT_PRIVATE_PER_APP: unreachable,
      RATE_LIMIT_WEBHOOK_SENDS_PER_APP: unreachable,
      RATE_LIMIT_AUTH_FAILURES_PER_IP: unreachable,
      RATE_LIMIT_AUTH_FAILURES_PER_APP: unreachable,
      ...metadataEnv(pki, writeBlob(pki, `fuzz-${provider}.jwt`, testBlob(pki))),
    });
    world = await buildWorld(svc);
    // A may use attestation, so the authenticator lists' handlers run past their plan gate.
    expect((await svc.http.post(`/admin/apps/${world.a.appId}/features`).set('ManagementKey', MANAGEMENT_KEY).send({ allowAttestation: true })).status).toBe(204);
  });
  afterAll(async () => {
    await svc?.close();
    pki?.remove();
  });

  it(`answers ${runsOn(provider)} malformed requests per operation (seed ${SEED}) without a 5xx, always with a problem, and leaves another app's rows alone`, async () => {
    const document = (await svc.http.get('/openapi.json')).body as { servers: { url: string }[]; paths: Record<string, Record<string, Omit<Operation, 'method' | 'path'>>> };
    const operations: Operation[] = Object.entries(document.paths).flatMap(([path, byMethod]) => Object.entries(byMethod).map(([method, operation]) => ({ ...operation, method, path })));
    const bases = document.servers.map(({ url }) => (url === '/' ? '' : url));
    const routes = new Map(documentedOperations().map(({ operationId, route }) => [operationId, route]));
    await flushBuffers(svc);
    const before = await rowsOf(svc.services.store.db, world.b.appId);

    const failures: Failure[] = [];
    let sent = 0;
    const outcomes = new Map<string, number>();
    for (const operation of operations) {
      for (let run = 0; run < runsOn(provider); run++) {
        const label = `FUZZ_SEED=${SEED} ${provider} ${operation.method.toUpperCase()} ${operation.path} case ${run}${run === 0 ? ' (cross-app)' : ''}`;
        const rng = prng(caseSeed(SEED, provider, operation.method, operation.path, run));
        await reviveManagementTarget(svc, world);
        // The first case of each operation is well-formed and names B's ids, aliases and tokens with A's key.
        const crossApp = run === 0;
        const url = rng.pick(bases) + pathOf(operation, rng, world, crossApp) + queryOf(operation, rng, world, crossApp);
        const headers = headersOf(operation, rng, world, crossApp);
        const schema = operation.requestBody?.content['application/json'].schema;
        const requestBody = crossApp
          ? schema && json(sample(schema, '', rng, world, true))
          : ((rng.chance(0.5) ? await ceremonyBody(svc, operation, rng, world) : undefined) ?? body(operation, rng, world));
        const res = await send(svc, operation.method, url, headers, requestBody);
        sent++;
        const outcome = res.status < 400 ? String(res.status) : `${res.status} ${res.body?.errorCode ?? contentTypeOf(res.headers)}`;
        outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
        const contentType = res.headers['content-type'] as string | undefined;
        const breach = contractBreach(operation, routes.get(operation.operationId), res.status, contentType, res.body);
        if (breach) {
          failures.push({ label: `${label}: ${breach}`, request: shorten(`${url} ${JSON.stringify(headers)} ${requestBody?.contentType ?? ''} ${requestBody?.text ?? ''}`), status: res.status, contentType, body: shorten(res.text ?? '') });
        }
      }
    }

    await flushBuffers(svc);
    if (process.env.FUZZ_VERBOSE) process.stderr.write(`${[...outcomes].sort().map(([o, n]) => `${o}: ${n}`).join('\n')}\n`);
    expect(failures).toEqual([]);
    expect(sent).toBe(operations.length * runsOn(provider));
    const at = Date.now();
    expect(comparable(await rowsOf(svc.services.store.db, world.b.appId), at)).toEqual(comparable(before, at));
    // The bystander still works: its key, its passkey and its data are intact.
    expect((await svc.http.get('/users/count').set('ApiSecret', world.b.apiSecret)).body).toEqual({ count: 1 });
  }, 300_000);
});
