import { addAuthConfigSchema, editAuthConfigSchema } from '../../services/authConfigs';
import { authConfigFromForm } from './authConfigFromForm';

describe('authConfigFromForm', () => {
  it('reads the form as the private API does, with the operator as performedBy and the extensions from the checkboxes', () => {
    const input = addAuthConfigSchema.parse(authConfigFromForm({ purpose: 'checkout', timeToLive: ' 00:05:00 ', userVerificationRequirement: 'required', prf: 'on', performedBy: 'forged' }, 'op@example.com'));
    expect(input).toEqual({ purpose: 'checkout', timeToLive: 300, userVerificationRequirement: 'required', extensions: { prf: true }, performedBy: 'op@example.com' });
    expect(editAuthConfigSchema.parse(authConfigFromForm({ purpose: 'checkout', timeToLive: '1.00:00:00', largeBlob: 'on' }, 'op@example.com')).extensions).toEqual({ largeBlob: 'read' });
    expect(editAuthConfigSchema.parse(authConfigFromForm({ purpose: 'checkout', timeToLive: '00:02:00' }, 'op@example.com')).extensions).toEqual({});
  });

  it('leaves bad values to the schema', () => {
    for (const bad of [{ purpose: 'a b' }, { purpose: ['a', 'b'] }, { timeToLive: '31.00:00:00' }, { timeToLive: '120' }, { userVerificationRequirement: 'always' }]) {
      expect(addAuthConfigSchema.safeParse(authConfigFromForm({ purpose: 'checkout', timeToLive: '00:02:00', ...bad }, 'op@example.com')).success).toBe(false);
    }
  });
});
