import { randomBytes } from 'node:crypto';
import { digestKey, SECRET_SCOPES } from '../../src/server/services/apps/apiKeys';
import { expectProblem, keyIdOf, managementClient, type ManagementClient } from '../support/http';
import { headerFor, keyProbe, statusWith, type KeyProbe } from '../support/keyProbe';
import { providers, startTestService, warnIfPostgresSkipped, type TestApp, type TestService } from '../support/testService';

warnIfPostgresSkipped();

const keysOf = (app: TestApp) => [app.apiKey, app.apiKey2, app.apiSecret, app.apiSecret2];
const hexOf = (key: string) => key.slice(-32);

describe.each(providers())('tenant isolation on %s', (provider) => {
  let svc: TestService;
  let admin: ManagementClient;
  let probe: KeyProbe;
  let a: TestApp;
  let b: TestApp;

  beforeAll(async () => {
    svc = await startTestService(provider);
    admin = managementClient(svc);
    probe = keyProbe(svc.services.keys);
  });
  beforeEach(async () => {
    a = await svc.createApp();
    b = await svc.createApp();
  });
  afterAll(() => svc.close());

  /** Every key of the app still authenticates, as that app. */
  async function expectAllKeysWork(app: TestApp) {
    for (const key of keysOf(app)) {
      const res = await probe.as(headerFor(key), key);
      expect({ key, status: res.status, appId: res.body.appId }).toEqual({ key, status: 200, appId: app.appId });
    }
  }

  /** A key id that B has and A does not, so a call under A's path cannot hit A's own key by accident. */
  async function keyIdOnlyInB(): Promise<string> {
    const aIds = new Set(keysOf(a).map(keyIdOf));
    const id = keysOf(b).map(keyIdOf).find((candidate) => !aIds.has(candidate));
    if (!id) throw new Error('every key id of B is also a key id of A');
    return id;
  }

  it("authenticates each app's keys as that app and no other", async () => {
    await expectAllKeysWork(a);
    await expectAllKeysWork(b);
  });

  it("refuses a key whose app id was swapped for another app's", async () => {
    for (const [from, to] of [
      [a, b],
      [b, a],
    ]) {
      for (const key of keysOf(from)) {
        const forged = key.replace(`${from.appId}:`, `${to.appId}:`);
        expect(await statusWith(probe, forged)).toBe(401);
      }
    }
  });

  it("cannot lock, unlock or delete B's keys through A's path", async () => {
    const bKeyId = await keyIdOnlyInB();
    const underA = `/admin/apps/${a.appId}/api-keys/${bKeyId}`;
    expectProblem(await admin.post(`${underA}/lock`), 404, 'api_key_not_found');
    expectProblem(await admin.delete(underA), 404, 'api_key_not_found');
    await expectAllKeysWork(b);

    expect((await admin.post(`/admin/apps/${b.appId}/api-keys/${bKeyId}/lock`)).status).toBe(204);
    expectProblem(await admin.post(`${underA}/unlock`), 404, 'api_key_not_found');
    const bKey = keysOf(b).find((key) => keyIdOf(key) === bKeyId)!;
    expect(await statusWith(probe, bKey)).toBe(401);
  });

  it("lists only an app's own keys", async () => {
    await admin.post(`/admin/apps/${b.appId}/public-keys`, { scopes: [0] });
    const res = await admin.get(`/admin/apps/${a.appId}/api-keys`);
    expect(res.body).toHaveLength(4);
    for (const key of keysOf(b)) expect(res.text).not.toContain(hexOf(key));
    expect(res.text).not.toContain(b.appId);
  });

  it("keeps each app's features apart", async () => {
    const change = { plan: 'enterprise', allowedOrigins: ['https://a.example.com'], maxUsers: 1 };
    const aBefore = (await admin.get(`/admin/apps/${a.appId}/features`)).body;
    const bBefore = (await admin.get(`/admin/apps/${b.appId}/features`)).body;
    expect(aBefore).toEqual(bBefore);
    expect(aBefore).not.toMatchObject(change);
    expect((await admin.post(`/admin/apps/${a.appId}/features`, change)).status).toBe(204);
    expect((await admin.get(`/admin/apps/${a.appId}/features`)).body).toEqual({ ...aBefore, ...change });
    expect((await admin.get(`/admin/apps/${b.appId}/features`)).body).toEqual(bBefore);
  });

  it("locking or freezing A leaves B's keys working", async () => {
    for (const key of keysOf(a)) expect((await admin.post(`/admin/apps/${a.appId}/api-keys/${keyIdOf(key)}/lock`)).status).toBe(204);
    await expectAllKeysWork(b);
    expect((await admin.post(`/admin/apps/${a.appId}/freeze`)).status).toBe(204);
    await expectAllKeysWork(b);
    expect(await statusWith(probe, a.apiSecret)).toBe(401);
  });

  it('locking a key of A leaves a key of B with the same id working', async () => {
    // Key ids are only four hex characters, so two apps sharing one is ordinary at scale.
    const sharedId = keyIdOf(a.apiSecret);
    const bSecret = `${b.appId}:secret:${randomBytes(14).toString('hex')}${sharedId}`;
    await svc.services.store.db.apiKey.create({
      data: { tenant: b.appId, id: sharedId, kind: 'secret', keyHash: digestKey(bSecret), publicValue: null, scopes: SECRET_SCOPES.join(',') },
    });
    expect(await statusWith(probe, bSecret)).toBe(200);

    expect((await admin.post(`/admin/apps/${a.appId}/api-keys/${sharedId}/lock`)).status).toBe(204);
    expect(await statusWith(probe, a.apiSecret)).toBe(401);
    expect(await statusWith(probe, bSecret)).toBe(200);

    expect((await admin.delete(`/admin/apps/${a.appId}/api-keys/${sharedId}`)).status).toBe(204);
    expect(await statusWith(probe, bSecret)).toBe(200);
    expect((await admin.get(`/admin/apps/${b.appId}/api-keys`)).body.map((k: { id: string }) => k.id)).toContain(sharedId);
  });

  it("deleting A leaves B's keys, features and listing intact", async () => {
    const bFeatures = (await admin.get(`/admin/apps/${b.appId}/features`)).body;
    const bKeys = (await admin.get(`/admin/apps/${b.appId}/api-keys`)).body;
    expect((await admin.delete(`/admin/apps/${a.appId}`)).status).toBe(200);

    for (const key of keysOf(a)) expect(await statusWith(probe, key)).toBe(401);
    await expectAllKeysWork(b);
    expect((await admin.get(`/admin/apps/${b.appId}/features`)).body).toEqual(bFeatures);
    expect((await admin.get(`/admin/apps/${b.appId}/api-keys`)).body).toEqual(bKeys);
  });
});
