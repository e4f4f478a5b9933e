import express, { type Express, type Router } from 'express';
import request from 'supertest';
import { staticRoutes } from './staticRoutes';

/**
 * A router whose routes overlap the ways the service's could: a parameter route before a fixed
 * one, two methods on one path in two routes, a middleware inside a sub-router, async handlers
 * that throw, a key check before the handler.
 */
function routes(): Router {
  const first = express.Router();
  first.get('/items/:id', (req, res) => {
    res.json({ by: 'param', id: req.params.id });
  });
  first.get('/items/all', (_req, res) => {
    res.json({ by: 'all' });
  });
  first.get('/health', (req, res) => {
    res.json({ by: 'health', route: (req.route as { path: string }).path });
  });
  first.post('/health', (_req, res) => {
    res.status(201).json({ by: 'health-post' });
  });
  const second = express.Router();
  const needsKey: express.RequestHandler = (req, _res, next) => {
    if (req.headers.key !== 'ok') throw Object.assign(new Error('no key'), { status: 401 });
    next();
  };
  second.post('/verify', needsKey, async (_req, res) => {
    await Promise.resolve();
    res.json({ by: 'verify' });
  });
  second.post('/fails', async () => {
    await Promise.resolve();
    throw Object.assign(new Error('nope'), { status: 409 });
  });
  second.use((req, res, next) => {
    res.setHeader('X-Later', 'seen');
    next();
  });
  second.get('/later', (_req, res) => {
    res.json({ by: 'later' });
  });
  const api = express.Router();
  api.use(first);
  api.use(second);
  return api;
}

function appWith(table: boolean): Express {
  const app = express();
  const api = routes();
  if (table) {
    app.use(staticRoutes(api));
    // Only what the table did not answer gets this far.
    app.use((_req, res, next) => {
      res.setHeader('X-Routed-By', 'router');
      next();
    });
  }
  app.use('/api', api);
  app.use(api);
  app.use((_req, res) => {
    res.status(404).json({ by: 'none' });
  });
  app.use(((error, _req, res, _next) => {
    res.status((error as { status?: number }).status ?? 500).json({ error: (error as Error).message });
  }) as express.ErrorRequestHandler);
  return app;
}

const CASES: [string, string, Record<string, string>?][] = [
  ['GET', '/items/all'],
  ['GET', '/items/7'],
  ['GET', '/health'],
  ['GET', '/HEALTH/'],
  ['HEAD', '/health'],
  ['POST', '/health'],
  ['PUT', '/health'],
  ['GET', '/api/health'],
  ['GET', '/API/Health'],
  ['POST', '/verify', { key: 'ok' }],
  ['POST', '/api/verify', { key: 'ok' }],
  ['POST', '/verify'],
  ['POST', '/fails'],
  ['GET', '/later'],
  ['GET', '/nowhere'],
  ['GET', '/health/extra'],
];

describe('the static route table', () => {
  const plain = appWith(false);
  const fast = appWith(true);

  it.each(CASES)('answers %s %s exactly as the router alone does', async (method, path, headers = {}) => {
    const send = (app: Express) => request(app)[method.toLowerCase() as 'get'](path).set(headers);
    const [expected, actual] = [await send(plain), await send(fast)];
    expect({ status: actual.status, body: actual.body, later: actual.headers['x-later'] }).toEqual({
      status: expected.status,
      body: expected.body,
      later: expected.headers['x-later'],
    });
  });

  it('answers the fixed paths no earlier layer takes itself, and leaves the rest to the router', async () => {
    const byTable = async (method: string, path: string, headers: Record<string, string> = {}) =>
      (await request(fast)[method.toLowerCase() as 'get'](path).set(headers)).headers['x-routed-by'] === undefined;
    expect(await byTable('GET', '/health')).toBe(true);
    expect(await byTable('HEAD', '/HEALTH/')).toBe(true);
    expect(await byTable('POST', '/api/verify', { key: 'ok' })).toBe(true);
    expect(await byTable('POST', '/verify')).toBe(true);
    // A parameter route comes first; a middleware comes first; no such route.
    expect(await byTable('GET', '/items/all')).toBe(false);
    expect(await byTable('GET', '/later')).toBe(false);
    expect(await byTable('PUT', '/health')).toBe(false);
  });

  it('sets the route, as the router does (the metrics label requests by it)', async () => {
    expect((await request(fast).get('/health')).body).toEqual({ by: 'health', route: '/health' });
  });
});
