/**
 * The automatic passkey upgrade (issue 35): a registration without the user-present flag is
 * accepted only for a ceremony begun as a conditional create from an upgrade token, a flag the
 * browser cannot forge, and the passkey is marked as made by the upgrade in the credential list
 * and the `passkey.registered` webhook. Against a real service process on each database.
 */
import { ORIGIN, RPID, finishRegistration } from '../support/ceremonies';
import { eventually } from '../support/eventually';
import { LOOPBACK_ALLOWED } from '../support/inProcessWebhookService';
import { expectProblem } from '../support/problems';
import { startServiceProcess, type ServiceProcess } from '../support/serviceProcess';
import { createCredential } from '../support/softwareAuthenticator';
import { createTestDatabase, providers, warnIfPostgresSkipped, type TestApp, type TestDatabase } from '../support/testService';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhookReceiver';

jest.setTimeout(60_000);
warnIfPostgresSkipped();

/** A token's payload changed, its MAC kept: what a browser holding the token could try. */
function withPayload(token: string, prefix: string, change: (payload: Record<string, unknown>) => void): string {
  const [body, keyId, mac] = token.slice(prefix.length).split('.');
  const payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Record<string, unknown>;
  change(payload);
  return `${prefix}${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${keyId}.${mac}`;
}

describe.each(providers())('the passkey upgrade on %s', (provider) => {
  let database: TestDatabase;
  let service: ServiceProcess;
  let app: TestApp;

  beforeAll(async () => {
    database = await createTestDatabase(provider);
    service = await startServiceProcess(LOOPBACK_ALLOWED, database);
    app = await service.createApp();
  });
  afterAll(async () => {
    await service?.stop();
    await database?.drop();
  });

  const registerToken = async (userId: string, extra: Record<string, unknown> = {}) => {
    const res = await service.http.post('/register/token').set('ApiSecret', app.apiSecret).send({ userId, username: `${userId}@example.com`, ...extra });
    expect(res.status).toBe(200);
    return res.body.token as string;
  };
  const begin = (token: string, extra: Record<string, unknown> = {}) =>
    service.http.post('/register/begin').set('ApiKey', app.apiKey).send({ token, RPID, Origin: ORIGIN, ...extra });
  /** The authenticator's answer to a begin, without the user present, sent to complete. */
  const completeWithoutPresence = async (beginBody: { session: string; data: { challenge: string; user: { id: string } } }, extra: Record<string, unknown> = {}) => {
    const { credential, response } = createCredential({ challenge: beginBody.data.challenge, rpId: RPID, origin: ORIGIN, userHandle: beginBody.data.user.id, userPresent: false });
    const complete = await service.http.post('/register/complete').set('ApiKey', app.apiKey).send({ session: beginBody.session, response, RPID, Origin: ORIGIN, ...extra });
    return { credential, complete };
  };
  const newUserId = () => `upgrade-${Math.random().toString(36).slice(2)}`;

  it('refuses a registration without the user present unless it was begun as a conditional create from an upgrade token', async () => {
    const userId = newUserId();
    const ordinary = await completeWithoutPresence((await begin(await registerToken(userId))).body);
    expectProblem(ordinary.complete, 400, 'fido2_invalid_registration');
    expect(ordinary.complete.body.detail).toMatch(/user presence/i);

    // An upgrade token begun as an ordinary (modal) ceremony still needs the user present.
    const upgradeModal = await completeWithoutPresence((await begin(await registerToken(userId, { upgrade: true }))).body);
    expectProblem(upgradeModal.complete, 400, 'fido2_invalid_registration');

    const conditional = await begin(await registerToken(userId, { upgrade: true }), { mediation: 'conditional' });
    expect(conditional.status).toBe(200);
    const upgraded = await completeWithoutPresence(conditional.body);
    expect(upgraded.complete.status).toBe(200);
    const listed = await service.http.post('/credentials/list').set('ApiSecret', app.apiSecret).send({ userId });
    expect(listed.body.map((c: { descriptor: { id: string } }) => c.descriptor.id)).toEqual([upgraded.credential.idB64]);
  });

  it('cannot be forged: an ordinary token may not begin a conditional create, and neither token nor session can be altered to say so', async () => {
    const userId = newUserId();
    const ordinaryToken = await registerToken(userId);
    expectProblem(await begin(ordinaryToken, { mediation: 'conditional' }), 400, 'conditional_create_not_allowed');

    // The upgrade flag written into an ordinary token breaks its MAC.
    const forgedToken = withPayload(ordinaryToken, 'register_', (payload) => (payload.upgrade = true));
    expectProblem(await begin(forgedToken, { mediation: 'conditional' }), 400, 'invalid_token');

    // The conditional flag written into an ordinary ceremony's session breaks its MAC too.
    const ordinaryBegin = (await begin(ordinaryToken)).body;
    const forgedSession = withPayload(ordinaryBegin.session, 'session_', (payload) => (payload.conditional = true));
    expectProblem((await completeWithoutPresence({ ...ordinaryBegin, session: forgedSession })).complete, 400, 'invalid_token');
    // Nor does complete listen to a request that asks for it: the session alone decides.
    const asked = await completeWithoutPresence((await begin(ordinaryToken)).body, { mediation: 'conditional', conditional: true, upgrade: true });
    expectProblem(asked.complete, 400, 'fido2_invalid_registration');
    expect((await service.http.post('/credentials/list').set('ApiSecret', app.apiSecret).send({ userId })).body).toEqual([]);
  });

  it('keeps the user-verification rule: a conditional create from a token that requires it still needs the user verified', async () => {
    const res = await begin(await registerToken(newUserId(), { upgrade: true, userVerification: 'required' }), { mediation: 'conditional' });
    const { response } = createCredential({ challenge: res.body.data.challenge, rpId: RPID, origin: ORIGIN, userHandle: res.body.data.user.id, userPresent: false, userVerified: false });
    const complete = await service.http.post('/register/complete').set('ApiKey', app.apiKey).send({ session: res.body.session, response, RPID, Origin: ORIGIN });
    expectProblem(complete, 400, 'fido2_invalid_registration');
  });

  it('marks the passkey as made by the upgrade in the credential list and the passkey.registered webhook', async () => {
    const receiver: WebhookReceiver = await startWebhookReceiver();
    try {
      const endpoint = await service.http.post('/webhooks/create').set('ApiSecret', app.apiSecret).send({ url: receiver.url('/hooks'), eventTypes: ['passkey.registered'] });
      expect(endpoint.status).toBe(201);
      const userId = newUserId();
      const modal = await finishRegistration(service, app, await registerToken(userId));
      expect(modal.complete.status).toBe(200);
      const upgraded = await completeWithoutPresence((await begin(await registerToken(userId, { upgrade: true }), { mediation: 'conditional' })).body);
      expect(upgraded.complete.status).toBe(200);

      const listed = await service.http.post('/credentials/list').set('ApiSecret', app.apiSecret).send({ userId });
      const upgradeOf = Object.fromEntries(listed.body.map((c: { descriptor: { id: string }; upgrade: boolean }) => [c.descriptor.id, c.upgrade]));
      expect(upgradeOf).toEqual({ [modal.credential.idB64]: false, [upgraded.credential.idB64]: true });

      const reports = await eventually('both passkey.registered webhooks', () => {
        const mine = receiver.received.filter((w) => w.payload.data.userId === userId);
        return mine.length === 2 ? mine : undefined;
      });
      const upgradeByCredential = Object.fromEntries(reports.map((w) => [w.payload.data.credentialId, w.payload.data.upgrade]));
      expect(upgradeByCredential).toEqual({ [modal.credential.idB64]: false, [upgraded.credential.idB64]: true });
      await service.http.post('/webhooks/delete').set('ApiSecret', app.apiSecret).send({ id: endpoint.body.id });
    } finally {
      await receiver.close();
    }
  });
});
