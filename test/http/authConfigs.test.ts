import { ORIGIN, RPID, registerPasskey, signIn, verifyToken } from '../support/ceremonies';
import { privateApi, publicApi } from '../support/privateApi';
import { expectProblem, expectValidationProblem, useTestService } from '../support/problems';
import { providers, type TestApp, type TestService } from '../support/testService';

const BUILT_INS = [
  { purpose: 'sign-in', timeToLive: 120, userVerificationRequirement: 'preferred', extensions: {}, createdBy: 'System', createdOn: null, editedBy: null, editedOn: null, lastUsedOn: null },
  { purpose: 'step-up', timeToLive: 180, userVerificationRequirement: 'required', extensions: {}, createdBy: 'System', createdOn: null, editedBy: null, editedOn: null, lastUsedOn: null },
];

const ISO = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

describe.each(providers())('authentication configurations on %s', (provider) => {
  const service = useTestService(provider);
  let svc: TestService;
  let app: TestApp;
  beforeEach(async () => {
    svc = service();
    app = await svc.createApp();
  });

  const api = () => privateApi(svc, app);
  const list = async (query = '') => {
    const res = await api().get(`/auth-configs/list${query}`);
    expect(res.status).toBe(200);
    return res.body.configurations as Record<string, unknown>[];
  };
  const add = (body: Record<string, unknown>) => api().post('/auth-configs/add', { performedBy: 'alice', ...body });
  const edit = (body: Record<string, unknown>) => api().post('/auth-configs', { performedBy: 'bob', ...body });
  const remove = (body: Record<string, unknown>) => api().post('/auth-configs/delete', { performedBy: 'carol', ...body });

  it('always lists the built-ins sign-in (120 s, preferred) and step-up (180 s, required), made by System', async () => {
    expect(await list()).toEqual(BUILT_INS);
    expect(await list('?purpose=step-up')).toEqual([BUILT_INS[1]]);
    expect(await list('?purpose=nothing-here')).toEqual([]);
  });

  it('adds a configuration (201), lists its time to live in whole seconds, and who made it when', async () => {
    const res = await add({ purpose: 'Checkout_2', timeToLive: '1.02:03:04', userVerificationRequirement: 'Required' });
    expect(res.status).toBe(201);
    expect(res.text).toBe('');
    const expected = {
      purpose: 'Checkout_2',
      timeToLive: 93_784,
      userVerificationRequirement: 'required',
      extensions: {},
      createdBy: 'alice',
      createdOn: ISO,
      editedBy: null,
      editedOn: null,
      lastUsedOn: null,
    };
    expect(await list()).toEqual([...BUILT_INS, expected]);
    expect(await list('?purpose=Checkout_2')).toEqual([expected]);
    expect(await list('?purpose=checkout_2')).toEqual([]);
  });

  it('defaults the user verification of a new configuration to preferred', async () => {
    expect((await add({ purpose: 'plain', timeToLive: '00:05:00' })).status).toBe(201);
    expect(await list('?purpose=plain')).toEqual([expect.objectContaining({ timeToLive: 300, userVerificationRequirement: 'preferred' })]);
  });

  it.each([
    ['a purpose with a space', { purpose: 'two words', timeToLive: '00:01:00' }, 'purpose'],
    ['a purpose with a dot', { purpose: 'a.b', timeToLive: '00:01:00' }, 'purpose'],
    ['a non-ASCII purpose', { purpose: 'köp', timeToLive: '00:01:00' }, 'purpose'],
    ['an empty purpose', { purpose: '', timeToLive: '00:01:00' }, 'purpose'],
    ['a purpose of 256 characters', { purpose: 'p'.repeat(256), timeToLive: '00:01:00' }, 'purpose'],
    ['no timeToLive', { purpose: 'x' }, 'timeToLive'],
    ['a zero timeToLive', { purpose: 'x', timeToLive: '00:00:00' }, 'timeToLive'],
    ['a timeToLive in seconds', { purpose: 'x', timeToLive: 60 }, 'timeToLive'],
    ['a timeToLive that is not hh:mm:ss', { purpose: 'x', timeToLive: '1 minute' }, 'timeToLive'],
    ['a timeToLive with 60 minutes', { purpose: 'x', timeToLive: '00:60:00' }, 'timeToLive'],
    ['a timeToLive over 30 days', { purpose: 'x', timeToLive: '30.00:00:01' }, 'timeToLive'],
    ['an unknown user verification', { purpose: 'x', timeToLive: '00:01:00', userVerificationRequirement: 'optional' }, 'userVerificationRequirement'],
    ['no performedBy', { purpose: 'x', timeToLive: '00:01:00', performedBy: undefined }, 'performedBy'],
    ['an empty performedBy', { purpose: 'x', timeToLive: '00:01:00', performedBy: '' }, 'performedBy'],
  ])('refuses to add %s with a 400 naming the field, and stores nothing', async (_case, body, field) => {
    expectValidationProblem(await add(body), field);
    expect(await list()).toEqual(BUILT_INS);
  });

  it('accepts a purpose of exactly 255 characters', async () => {
    expect((await add({ purpose: 'p'.repeat(255), timeToLive: '00:00:01' })).status).toBe(201);
  });

  it('refuses a duplicate purpose, built-ins included, with 409', async () => {
    expect((await add({ purpose: 'twice', timeToLive: '00:01:00' })).status).toBe(201);
    const again = await add({ purpose: 'twice', timeToLive: '00:02:00' });
    expectProblem(again, 409, 'auth_config_already_exists');
    expect(again.body.title).toBe('The configuration twice already exists.');
    expectProblem(await add({ purpose: 'sign-in', timeToLive: '00:02:00' }), 409, 'auth_config_already_exists');
    expect(await list('?purpose=twice')).toEqual([expect.objectContaining({ timeToLive: 60 })]);
  });

  it('edits the fields it is given (204), recording who and when', async () => {
    await add({ purpose: 'edit-me', timeToLive: '00:01:00', userVerificationRequirement: 'discouraged' });
    expect((await edit({ purpose: 'edit-me', timeToLive: '00:10:00' })).status).toBe(204);
    expect(await list('?purpose=edit-me')).toEqual([
      expect.objectContaining({ timeToLive: 600, userVerificationRequirement: 'discouraged', createdBy: 'alice', editedBy: 'bob', editedOn: ISO }),
    ]);
    expect((await edit({ purpose: 'edit-me', userVerificationRequirement: 'required', performedBy: 'dave' })).status).toBe(204);
    expect(await list('?purpose=edit-me')).toEqual([expect.objectContaining({ timeToLive: 600, userVerificationRequirement: 'required', editedBy: 'dave' })]);
  });

  it('edits a built-in, which keeps createdBy System', async () => {
    expect((await edit({ purpose: 'step-up', timeToLive: '00:00:30' })).status).toBe(204);
    const [, stepUp] = await list();
    expect(stepUp).toEqual({ ...BUILT_INS[1], timeToLive: 30, createdOn: ISO, editedBy: 'bob', editedOn: ISO });
  });

  it('answers 404 when editing or deleting a purpose that does not exist', async () => {
    const edited = await edit({ purpose: 'ghost', timeToLive: '00:01:00' });
    expectProblem(edited, 404, 'auth_config_not_found');
    expect(edited.body.title).toBe('The configuration ghost does not exist.');
    expectProblem(await remove({ purpose: 'ghost' }), 404, 'auth_config_not_found');
  });

  it('deletes a configuration (204) and refuses to delete a built-in (400)', async () => {
    await add({ purpose: 'short-lived', timeToLive: '00:01:00' });
    expect((await remove({ purpose: 'short-lived' })).status).toBe(204);
    expect(await list()).toEqual(BUILT_INS);
    for (const purpose of ['sign-in', 'step-up']) {
      const res = await remove({ purpose });
      expectProblem(res, 400, 'auth_config_not_deletable');
      expect(res.body.title).toBe(`The ${purpose} configuration cannot be deleted.`);
    }
    expectValidationProblem(await remove({ purpose: 'short-lived', performedBy: undefined }), 'performedBy');
  });

  it('keeps each app to its own configurations', async () => {
    const other = await svc.createApp();
    await add({ purpose: 'mine', timeToLive: '00:01:00' });
    expect(await privateApi(svc, other).get('/auth-configs/list?purpose=mine').then((r) => r.body)).toEqual({ configurations: [] });
    expectProblem(await privateApi(svc, other).post('/auth-configs/delete', { purpose: 'mine', performedBy: 'x' }), 404, 'auth_config_not_found');
  });

  it('needs the ApiSecret', async () => {
    expect((await svc.http.get('/auth-configs/list').set('ApiKey', app.apiKey)).status).toBe(401);
    expect((await publicApi(svc, app).post('/auth-configs/add', { purpose: 'x', timeToLive: '00:01:00', performedBy: 'x' })).status).toBe(401);
  });

  describe('at sign-in', () => {
    it('a custom purpose sets the user verification and the lifetime of the verify token, and its last use', async () => {
      await add({ purpose: 'wire-transfer', timeToLive: '00:07:00', userVerificationRequirement: 'required' });
      const { credential, userId } = await registerPasskey(svc, app);
      const { begin, complete } = await signIn(svc, app, credential, { userId, purpose: 'wire-transfer' });
      expect(begin.body.data.userVerification).toBe('required');
      expect(complete.status).toBe(200);
      const verified = await verifyToken(svc, app, complete.body.token);
      expect(verified.body).toMatchObject({ success: true, type: 'passkey_signin', purpose: 'wire-transfer', userId });
      expect((Date.parse(verified.body.expiresAt) - Date.parse(verified.body.timestamp)) / 1000).toBe(420);
      expect(await list('?purpose=wire-transfer')).toEqual([expect.objectContaining({ lastUsedOn: ISO })]);
    });

    it('an edit takes effect at the next sign-in', async () => {
      await add({ purpose: 'quick', timeToLive: '00:01:00', userVerificationRequirement: 'discouraged' });
      const { credential, userId } = await registerPasskey(svc, app);
      expect((await signIn(svc, app, credential, { userId, purpose: 'quick' })).begin.body.data.userVerification).toBe('discouraged');
      await edit({ purpose: 'quick', userVerificationRequirement: 'required', timeToLive: '00:02:00' });
      const { begin, complete } = await signIn(svc, app, credential, { userId, purpose: 'quick' });
      expect(begin.body.data.userVerification).toBe('required');
      const verified = await verifyToken(svc, app, complete.body.token);
      expect((Date.parse(verified.body.expiresAt) - Date.parse(verified.body.timestamp)) / 1000).toBe(120);
      await remove({ purpose: 'quick' });
      expectProblem(await publicApi(svc, app).post('/signin/begin', { userId, purpose: 'quick', RPID, Origin: ORIGIN }), 400, 'unknown_purpose');
    });

    it('no purpose signs in as sign-in, and records the built-in as used', async () => {
      const { credential, userId } = await registerPasskey(svc, app);
      const { complete } = await signIn(svc, app, credential, { userId });
      expect((await verifyToken(svc, app, complete.body.token)).body.purpose).toBe('sign-in');
      const [signInConfig] = await list();
      expect(signInConfig).toEqual({ ...BUILT_INS[0], createdOn: ISO, lastUsedOn: ISO });
    });
  });
});
