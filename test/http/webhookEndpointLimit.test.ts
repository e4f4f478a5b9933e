/**
 * The limit of webhook endpoints per app holds under concurrent creates, on a service process
 * (`node dist/cli.js serve`): on PostgreSQL's read committed, counting and inserting in one
 * transaction alone would let creates that count at once all pass.
 */
import { MAX_WEBHOOK_ENDPOINTS } from '../../src/server/core/webhookEventTypes';
import { expectProblem } from '../support/problems';
import { ensureBuilt, startServiceProcess, type ServiceProcess } from '../support/serviceProcess';
import { createTestDatabase, providers, warnIfPostgresSkipped, type TestDatabase } from '../support/testService';

warnIfPostgresSkipped();

const PROCESS_TIMEOUT_MS = 120_000;
const CREATES = 25;
/** Creation checks the URL, so it must be one the service may call: plain http to loopback, allowed here. Nothing listens there; nothing is sent. */
const LOOPBACK_ALLOWED = { WEBHOOK_ALLOW_INSECURE: 'true', WEBHOOK_ALLOW_PRIVATE_NETWORKS: '127.0.0.1/32' };

beforeAll(() => ensureBuilt(), PROCESS_TIMEOUT_MS);

describe.each(providers())('the webhook endpoint limit on %s', (provider) => {
  let database: TestDatabase;
  let svc: ServiceProcess;
  beforeAll(async () => {
    database = await createTestDatabase(provider);
    svc = await startServiceProcess(LOOPBACK_ALLOWED, database);
  }, PROCESS_TIMEOUT_MS);
  afterAll(async () => {
    await svc?.stop();
    await database?.drop();
  }, PROCESS_TIMEOUT_MS);

  it(`lets exactly ${MAX_WEBHOOK_ENDPOINTS} of ${CREATES} concurrent creates through and refuses the rest with webhook_limit_reached`, async () => {
    const app = await svc.createApp();
    const answers = await Promise.all(
      Array.from({ length: CREATES }, (_, i) => svc.http.post('/webhooks/create').set('ApiSecret', app.apiSecret).send({ url: `http://127.0.0.1:9/in/${i}`, eventTypes: ['user.deleted'] })),
    );
    expect(answers.filter((res) => res.status === 201)).toHaveLength(MAX_WEBHOOK_ENDPOINTS);
    const refused = answers.filter((res) => res.status !== 201);
    expect(refused).toHaveLength(CREATES - MAX_WEBHOOK_ENDPOINTS);
    for (const res of refused) expectProblem(res, 409, 'webhook_limit_reached');
    const listed = await svc.http.get('/webhooks/list').set('ApiSecret', app.apiSecret);
    expect(listed.body).toHaveLength(MAX_WEBHOOK_ENDPOINTS);
  });
});
