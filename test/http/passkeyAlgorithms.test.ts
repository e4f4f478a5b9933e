import { registerPasskey, signIn, verifyToken } from '../support/ceremonies';
import { providers, startTestService, warnIfPostgresSkipped, type TestService } from '../support/testService';

warnIfPostgresSkipped();

describe.each(providers())('every supported key algorithm, end to end, on %s', (provider) => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService(provider);
  });
  afterAll(() => svc.close());

  it.each(['ES256', 'RS256', 'EdDSA'] as const)('registers and signs in with %s', async (alg) => {
    const app = await svc.createApp();
    const reg = await registerPasskey(svc, app, { aliases: ['a@example.com'], authenticator: { alg } });
    expect(reg.complete.status).toBe(200);
    expect(reg.complete.body.token).toMatch(/^verify_/);
    const regVerified = await verifyToken(svc, app, reg.complete.body.token);
    expect(regVerified.status).toBe(200);
    expect(regVerified.body).toMatchObject({ success: true, userId: reg.userId, type: 'passkey_register' });

    const byAlias = await signIn(svc, app, reg.credential, { alias: 'a@example.com' });
    expect(byAlias.begin.body.data.allowCredentials).toEqual([{ type: 'public-key', id: reg.credential.idB64 }]);
    expect(byAlias.complete.status).toBe(200);
    const verified = await verifyToken(svc, app, byAlias.complete.body.token);
    expect(verified.body).toMatchObject({ success: true, userId: reg.userId, type: 'passkey_signin', purpose: 'sign-in' });
  });
});
