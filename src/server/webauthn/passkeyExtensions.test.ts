import { registrationExtensionInputs, registrationExtensionsSchema, signinExtensionInputs, signinExtensionsSchema } from './passkeyExtensions';

const HEX_SALT = 'ab'.repeat(32);

describe('registrationExtensionInputs', () => {
  it('asks for credProps alone by default, as registrations always did', () => {
    expect(registrationExtensionInputs(undefined)).toEqual({ credProps: true });
    expect(registrationExtensionInputs({})).toEqual({ credProps: true });
  });

  it('asks the authenticator to enable PRF without an eval, and for large blob support', () => {
    expect(registrationExtensionInputs({ prf: true, largeBlob: 'required' })).toEqual({ credProps: true, prf: {}, largeBlob: { support: 'required' } });
    expect(registrationExtensionInputs({ credProps: false, prf: false })).toEqual({});
  });
});

describe('signinExtensionInputs', () => {
  it('salts each offered passkey with its own salt, as base64url bytes', () => {
    const inputs = signinExtensionInputs({ prf: true }, [
      { id: 'a', prfSalt: HEX_SALT },
      { id: 'b', prfSalt: 'cd'.repeat(32) },
    ]);
    expect(inputs).toEqual({
      prf: { evalByCredential: { a: { first: Buffer.from(HEX_SALT, 'hex').toString('base64url') }, b: { first: Buffer.from('cd'.repeat(32), 'hex').toString('base64url') } } },
    });
  });

  it('sends no PRF request when no passkey is offered (discoverable), nor any extensions when none is asked', () => {
    expect(signinExtensionInputs({ prf: true }, [])).toBeUndefined();
    expect(signinExtensionInputs({ prf: true, largeBlob: 'read' }, [])).toEqual({ largeBlob: { read: true } });
    expect(signinExtensionInputs({}, [{ id: 'a', prfSalt: HEX_SALT }])).toBeUndefined();
  });

  it('leaves out a passkey stored without a salt', () => {
    expect(signinExtensionInputs({ prf: true }, [{ id: 'a', prfSalt: null }])).toBeUndefined();
  });
});

describe('the extension schemas', () => {
  it('take names in any case and refuse unknown ones', () => {
    expect(registrationExtensionsSchema.parse({ PRF: 'true', LargeBlob: 'Preferred' })).toEqual({ prf: true, largeBlob: 'preferred' });
    expect(registrationExtensionsSchema.safeParse({ hmacCreateSecret: true }).success).toBe(false);
    expect(signinExtensionsSchema.safeParse({ credProps: true }).success).toBe(false);
    expect(signinExtensionsSchema.safeParse({ largeBlob: 'write' }).success).toBe(false);
    expect(signinExtensionsSchema.safeParse([]).success).toBe(false);
  });
});
