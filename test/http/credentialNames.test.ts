/**
 * What a passkey list shows its user: a provider name from the AAGUID (bundled list, or the
 * operator's AAGUID_NAMES_FILE) and a nickname that `/credentials/update` renames. Both are
 * extensions of this service.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { registerPasskey } from '../support/ceremonies';
import { expectProblem, expectValidationProblem, useTestService } from '../support/problems';
import { credentialsOf, privateApi, setFeatures } from '../support/privateApi';
import { providers } from '../support/testService';

const GOOGLE = 'ea9b8d66-4d01-1d21-3ce4-b6b48cb575d4';
const IN_HOUSE = '0f0e0d0c-0b0a-0908-0706-050403020100';
const aaguidBytes = (guid: string) => Buffer.from(guid.replace(/-/g, ''), 'hex');

const namesFile = join(mkdtempSync(join(tmpdir(), 'pwl-names-')), 'aaguids.json');
writeFileSync(namesFile, JSON.stringify({ [IN_HOUSE]: { name: 'Example Corp key', icon_dark: 'data:,', icon_light: 'data:,' } }));

describe.each(providers())('passkey names on %s', (provider) => {
  const service = useTestService(provider, { AAGUID_NAMES_FILE: namesFile });

  it("names a credential's provider from its AAGUID: the bundled list, the operator's file, or null", async () => {
    const svc = service();
    const app = await svc.createApp();
    for (const aaguid of [GOOGLE, IN_HOUSE, undefined]) await registerPasskey(svc, app, { userId: 'u1', authenticator: aaguid ? { aaguid: aaguidBytes(aaguid) } : {} });
    const byAaguid = Object.fromEntries((await credentialsOf(svc, app, 'u1')).map((c: { aaGuid: string; authenticatorName: string | null }) => [c.aaGuid, c.authenticatorName]));
    expect(byAaguid).toEqual({ [GOOGLE]: 'Google Password Manager', [IN_HOUSE]: 'Example Corp key', '00000000-0000-0000-0000-000000000000': null });
  });

  it('renames a passkey: 204, the new nickname is listed, and the app log has it', async () => {
    const svc = service();
    const app = await svc.createApp();
    await setFeatures(svc, app, { eventLoggingIsEnabled: true });
    const { credential } = await registerPasskey(svc, app, { userId: 'u1', nickname: 'old' });
    const api = privateApi(svc, app);
    expect((await api.post('/credentials/update', { credentialId: credential.idB64, nickname: 'Work laptop' })).status).toBe(204);
    expect((await credentialsOf(svc, app, 'u1')).map((c: { nickname: string }) => c.nickname)).toEqual(['Work laptop']);
    // Standard base64 names the same passkey, as for delete.
    expect((await api.post('/credentials/update', { credentialId: Buffer.from(credential.idB64, 'base64url').toString('base64'), nickname: '' })).status).toBe(204);
    expect((await credentialsOf(svc, app, 'u1'))[0].nickname).toBe('');
    await svc.services.events.flush();
    const events = (await api.get('/events?pageNumber=1&numberOfResults=1000')).body.events as { eventType: string; subject: string }[];
    expect(events.filter((e) => e.eventType === 'ApiUserUpdateCredential')).toHaveLength(2);
  });

  it("answers 404 for another app's passkey and leaves it as it was (tenant isolation)", async () => {
    const svc = service();
    const [a, b] = [await svc.createApp(), await svc.createApp()];
    const { credential } = await registerPasskey(svc, b, { userId: 'ub', nickname: 'theirs' });
    expectProblem(await privateApi(svc, a).post('/credentials/update', { credentialId: credential.idB64, nickname: 'mine now' }), 404, 'credential_not_found');
    expect((await credentialsOf(svc, b, 'ub'))[0].nickname).toBe('theirs');
  });

  it('refuses a nickname over 64 characters, a missing or malformed id, with nothing changed', async () => {
    const svc = service();
    const app = await svc.createApp();
    const { credential } = await registerPasskey(svc, app, { userId: 'u1', nickname: 'kept' });
    const api = privateApi(svc, app);
    expectValidationProblem(await api.post('/credentials/update', { credentialId: credential.idB64, nickname: 'x'.repeat(65) }), 'nickname');
    expectValidationProblem(await api.post('/credentials/update', { nickname: 'x' }), 'credentialId');
    expectValidationProblem(await api.post('/credentials/update', { credentialId: 'not base64!', nickname: 'x' }), 'credentialId');
    expect((await credentialsOf(svc, app, 'u1'))[0].nickname).toBe('kept');
  });

  it('refuses names with control or invisible formatting characters (a bidi override), at rename and at registration', async () => {
    const svc = service();
    const app = await svc.createApp();
    const { credential } = await registerPasskey(svc, app, { userId: 'u1', nickname: 'kept' });
    const api = privateApi(svc, app);
    for (const nickname of ['Laptop\u202Egnp.exe', 'pay\u200Dpal', 'two\nlines', 'bell\u0007']) {
      const refused = await api.post('/credentials/update', { credentialId: credential.idB64, nickname });
      expectValidationProblem(refused, 'nickname');
      expect(JSON.stringify(refused.body)).not.toContain(nickname);
    }
    expect((await credentialsOf(svc, app, 'u1'))[0].nickname).toBe('kept');
    const registration = await registerPasskey(svc, app, { userId: 'u2', nickname: 'Laptop\u202Egnp.exe' });
    expectValidationProblem(registration.complete, 'nickname');
    expect(await credentialsOf(svc, app, 'u2')).toEqual([]);
  });
});
