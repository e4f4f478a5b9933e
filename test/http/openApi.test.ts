import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import { ERROR_CODES } from '../../src/server/core/errorCodes';
import { startTestService, type TestService } from '../support/testService';

/**
 * The OpenAPI document against what is really mounted: every method+path the Express router
 * stack of `createApp` answers (both generations, both prefixes) is documented, and nothing else.
 */

type RouterLike = object;
interface Mount {
  paths: string[];
  handle: unknown;
}
interface MountedRoute {
  path: string;
  route: { methods: Record<string, boolean> };
}

/** Records every `use` and `route` on every Express router while `build` runs (the layers keep no path text). */
async function recordRouters<T>(build: () => Promise<T>): Promise<{ result: T; mounts: Map<RouterLike, Mount[]>; routes: Map<RouterLike, MountedRoute[]> }> {
  const proto = express.Router.prototype as unknown as Record<'use' | 'route', (...args: unknown[]) => unknown>;
  const { use, route } = proto;
  const mounts = new Map<RouterLike, Mount[]>();
  const routes = new Map<RouterLike, MountedRoute[]>();
  proto.use = function (this: RouterLike, ...args: unknown[]) {
    const [first, ...rest] = args;
    const isPath = typeof first === 'string' || (Array.isArray(first) && first.flat(Infinity).every((p) => typeof p === 'string'));
    const paths = isPath ? [first].flat(Infinity as 1) as string[] : ['/'];
    for (const handle of (isPath ? rest : args).flat(Infinity as 1)) (mounts.get(this) ?? mounts.set(this, []).get(this)!).push({ paths, handle });
    return use.apply(this, args);
  };
  proto.route = function (this: RouterLike, ...args: unknown[]) {
    const created = route.apply(this, args) as MountedRoute['route'];
    (routes.get(this) ?? routes.set(this, []).get(this)!).push({ path: String(args[0]), route: created });
    return created;
  };
  try {
    return { result: await build(), mounts, routes };
  } finally {
    proto.use = use;
    proto.route = route;
  }
}

const joinPath = (prefix: string, path: string) => (path === '/' ? prefix : prefix + path);

/** `METHOD /full/path` of every route reachable from `router` by its recorded mounts. */
function walk(router: RouterLike, prefix: string, recorded: Awaited<ReturnType<typeof recordRouters>>, into: Set<string>, depth = 0): Set<string> {
  if (depth > 10) throw new Error('routers nested deeper than 10');
  for (const { path, route } of recorded.routes.get(router) ?? []) {
    for (const method of Object.keys(route.methods)) into.add(`${method === '_all' ? 'GET' : method.toUpperCase()} ${joinPath(prefix, path)}`);
  }
  for (const { paths, handle } of recorded.mounts.get(router) ?? []) {
    if (!recorded.mounts.has(handle as RouterLike) && !recorded.routes.has(handle as RouterLike)) continue; // plain middleware
    for (const path of paths) walk(handle as RouterLike, joinPath(prefix, path), recorded, into, depth + 1);
  }
  return into;
}

/** A concrete URL for a route path: each `:param` becomes a plausible value. */
const concrete = (path: string) => path.replace(/:(\w+)/g, (_m, name: string) => (name === 'keyId' ? 'ab12' : 'someapp'));

interface OpenApiDocument {
  openapi: string;
  servers: { url: string }[];
  paths: Record<string, Record<string, { operationId: string; security: Record<string, string[]>[]; requestBody?: { content: Record<string, { schema: { required?: string[] } }> } }>>;
  components: { schemas: { Problem: { properties: { errorCode: { enum: string[] } } } } };
}

describe('the OpenAPI document', () => {
  let svc: TestService;
  let mounted: string[];
  let document: OpenApiDocument;

  beforeAll(async () => {
    const recorded = await recordRouters(() => startTestService('sqlite'));
    svc = recorded.result;
    const candidates = walk((svc.app as unknown as { router: RouterLike }).router, '', recorded, new Set());
    // A route shadowed by an earlier answer (the older generation's 405 for GET /v3/credentials/list) is not mounted for callers.
    const reachable: string[] = [];
    for (const candidate of candidates) {
      const [method, path] = candidate.split(' ');
      const res = await svc.http[method.toLowerCase() as 'get'](concrete(path));
      if (!['not_found', 'method_not_allowed'].includes(res.body?.errorCode)) reachable.push(candidate);
    }
    mounted = reachable.sort();
    document = (await svc.http.get('/openapi.json')).body;
  });
  afterAll(() => svc?.close());

  it('is served at /openapi.json and /api/openapi.json as application/json, the same text each time', async () => {
    const answers = await Promise.all(['/openapi.json', '/api/openapi.json', '/openapi.json'].map((path) => svc.http.get(path)));
    for (const res of answers) {
      expect({ status: res.status, type: res.headers['content-type'] }).toEqual({ status: 200, type: 'application/json; charset=utf-8' });
      expect(res.text).toBe(answers[0].text);
    }
    expect(document.openapi).toMatch(/^3\.1\./);
  });

  it('lists exactly the mounted routes of both generations below both prefixes', () => {
    const documented: string[] = [];
    for (const { url } of document.servers) {
      const base = url === '/' ? '' : url;
      for (const [path, operations] of Object.entries(document.paths)) {
        for (const method of Object.keys(operations)) documented.push(`${method.toUpperCase()} ${base}${path.replace(/\{(\w+)\}/g, ':$1')}`);
      }
    }
    // Sanity: the walk found both generations under both prefixes.
    for (const route of ['POST /register/token', 'POST /api/register/token', 'POST /v3/register/token', 'POST /api/v3/account/delete', 'DELETE /api/admin/apps/:appId/api-keys/:keyId']) {
      expect(mounted).toContain(route);
    }
    expect(mounted).not.toContain('GET /v3/credentials/list');
    expect(documented.sort()).toEqual(mounted);
  });

  it('is a valid OpenAPI 3.1 document', () => {
    const dir = mkdtempSync(join(tmpdir(), 'openapi-'));
    try {
      writeFileSync(join(dir, 'openapi.json'), JSON.stringify(document));
      const cli = require.resolve('@seriousme/openapi-schema-validator/bin/validate-api-cli.js');
      const run = spawnSync(process.execPath, [cli, join(dir, 'openapi.json')], { encoding: 'utf8', timeout: 20_000 });
      expect({ status: run.status, output: run.stdout + run.stderr }).toEqual({ status: 0, output: expect.stringContaining('"valid": true') });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('names every error code of the one dictionary in the problem schema', () => {
    expect(document.components.schemas.Problem.properties.errorCode.enum).toEqual(Object.keys(ERROR_CODES));
  });

  it('gives every operation a unique operationId and the key it needs, with its scope', () => {
    const operations = Object.values(document.paths).flatMap((byMethod) => Object.values(byMethod));
    const ids = operations.map((o) => o.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(document.paths['/register/token'].post.security).toEqual([{ ApiSecret: ['token_register'] }]);
    expect(document.paths['/signin/begin'].post.security).toEqual([{ ApiKey: ['login'] }]);
    expect(document.paths['/admin/apps/{appId}/create'].post.security).toEqual([{ ManagementKey: [] }]);
    expect(document.paths['/health/storage'].get.security).toEqual([]);
  });

  it("documents request bodies from the routes' own schemas, required fields included", () => {
    const schemaOf = (path: string) => document.paths[path].post.requestBody!.content['application/json'].schema;
    expect(schemaOf('/register/token').required).toEqual(['userId', 'username']);
    expect(schemaOf('/v3/register/token').required).toEqual(['userId', 'username']);
    expect(schemaOf('/register/complete').required).toEqual(['response']);
    expect(schemaOf('/admin/apps/{appId}/create').required).toEqual(['adminEmail']);
    // Absent scopes parse (and are then refused by the service), so the schema does not require them.
    expect(schemaOf('/admin/apps/{appId}/public-keys').required).toBeUndefined();
  });

  it('documents path and query parameters, required where validation requires them', () => {
    const parameters = (path: string) =>
      (document.paths[path].get as unknown as { parameters: { name: string; in: string; required: boolean }[] }).parameters.map(({ name, in: where, required }) => ({ name, in: where, required }));
    // pageNumber or after: the one the request names is checked by validation.
    expect(parameters('/events')).toEqual([
      { name: 'pageNumber', in: 'query', required: false },
      { name: 'numberOfResults', in: 'query', required: false },
      { name: 'after', in: 'query', required: false },
    ]);
    expect(parameters('/users/list')).toEqual([
      { name: 'limit', in: 'query', required: false },
      { name: 'after', in: 'query', required: false },
    ]);
    expect(parameters('/apps/delete/cancel/{appId}')).toEqual([
      { name: 'appId', in: 'path', required: true },
      { name: 'token', in: 'query', required: false },
    ]);
  });
});
