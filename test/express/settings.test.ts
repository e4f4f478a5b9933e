import { inspect } from 'node:util';
import { PasswordlessSettingsError, resolveSettings } from '../../src/express';

const SECRET = 'shop:secret:0123456789abcdef0123456789abcdef';
const PUBLIC = 'shop:public:fedcba9876543210fedcba9876543210';
const keys = { Passwordless__ApiSecret: SECRET, Passwordless__ApiKey: PUBLIC };

/** The error resolveSettings throws, for assertions on its key and message. */
function failure(options: Parameters<typeof resolveSettings>[0], env: NodeJS.ProcessEnv): PasswordlessSettingsError {
  try {
    resolveSettings(options, env);
  } catch (error) {
    if (error instanceof PasswordlessSettingsError) return error;
    throw error;
  }
  throw new Error('resolveSettings accepted the settings');
}

describe('middleware settings: defaults', () => {
  it('gives every optional setting the documented default', () => {
    const settings = resolveSettings({}, keys);
    expect({ ...settings }).toEqual({
      apiKey: PUBLIC,
      apiUrl: 'http://localhost:7001',
      appId: 'shop',
      signInScheme: 'Identity.Application',
      userIdClaimType: undefined,
      origins: undefined,
      register: { aliasHashing: true, attestation: 'none', authenticatorType: 'any', expirationSeconds: 120, discoverable: true, userVerification: 'preferred', prf: false },
    });
    expect(settings.apiSecret).toBe(SECRET);
  });

  it('keeps the secret out of JSON and console output of the settings', () => {
    const settings = resolveSettings({}, keys);
    expect(JSON.stringify(settings)).not.toContain(SECRET);
    expect(inspect(settings, { depth: 5 })).not.toContain(SECRET);
  });
});

describe('middleware settings: Origins', () => {
  it('reads a comma-separated list of web origins, or an array option, normalised and without repeats', () => {
    expect(resolveSettings({}, { ...keys, Passwordless__Origins: 'https://shop.example.com, https://www.shop.example.com:8443/,https://shop.example.com' }).origins).toEqual([
      'https://shop.example.com',
      'https://www.shop.example.com:8443',
    ]);
    expect(resolveSettings({ origins: ['http://localhost:3000'] }, keys).origins).toEqual(['http://localhost:3000']);
  });

  it.each(['shop.example.com', 'https://shop.example.com/login', 'ftp://shop.example.com', 'https://shop.example.com?x=1', ','])('refuses %p, naming the setting', (value) => {
    const error = failure({}, { ...keys, Passwordless__Origins: value });
    expect(error.key).toBe('Passwordless__Origins');
  });
});

describe('middleware settings: every key from the environment', () => {
  it('reads each Passwordless__ key, with section separators, and maps values to what the service expects', () => {
    const settings = resolveSettings(
      {},
      {
        ...keys,
        Passwordless__ApiUrl: 'https://passkeys.example.com/api/',
        Passwordless__SignInScheme: 'passkey',
        Passwordless__UserIdClaimType: 'uid',
        Passwordless__Register__AliasHashing: 'false',
        Passwordless__Register__Attestation: 'Direct',
        Passwordless__Register__AuthenticationType: 'cross-platform',
        Passwordless__Register__Expiration: '1.02:03:04',
        Passwordless__Register__Discoverable: 'False',
        Passwordless__Register__UserVerification: 'Required',
        Passwordless__Register__Prf: 'true',
      },
    );
    expect({ ...settings, register: { ...settings.register } }).toEqual({
      apiKey: PUBLIC,
      apiUrl: 'https://passkeys.example.com/api',
      appId: 'shop',
      signInScheme: 'passkey',
      userIdClaimType: 'uid',
      register: {
        aliasHashing: false,
        attestation: 'direct',
        authenticatorType: 'cross-platform',
        expirationSeconds: 86_400 + 2 * 3600 + 3 * 60 + 4,
        discoverable: false,
        userVerification: 'required',
        prf: true,
      },
    });
  });

  it.each([
    ['PASSWORDLESS__APISECRET', 'passwordless__apikey', 'PASSWORDLESS__REGISTER__USERVERIFICATION', 'DISCOURAGED'],
    ['passwordless__apisecret', 'PassWordLess__ApiKey', 'passwordless__register__userverification', 'discouraged'],
  ])('matches key names and enum values in any case (%s)', (secretKey, publicKey, uvKey, uvValue) => {
    const settings = resolveSettings({}, { [secretKey]: SECRET, [publicKey]: PUBLIC, [uvKey]: uvValue });
    expect(settings.apiSecret).toBe(SECRET);
    expect(settings.register.userVerification).toBe('discouraged');
  });

  it.each([
    ['None', 'none'],
    ['INDIRECT', 'indirect'],
  ])('reads Register__Attestation %s as %s', (given, expected) => {
    expect(resolveSettings({}, { ...keys, Passwordless__Register__Attestation: given }).register.attestation).toBe(expected);
  });

  it.each([
    ['Any', 'any'],
    ['PLATFORM', 'platform'],
    ['CrossPlatform', 'cross-platform'],
  ])('reads Register__AuthenticationType %s as %s', (given, expected) => {
    expect(resolveSettings({}, { ...keys, Passwordless__Register__AuthenticationType: given }).register.authenticatorType).toBe(expected);
  });

  it.each([
    ['00:02:00', 120],
    ['00:00:01', 1],
    ['23:59:59', 86_399],
    ['30.00:00:00', 30 * 86_400],
  ])('reads Register__Expiration %s as %i seconds', (given, seconds) => {
    expect(resolveSettings({}, { ...keys, Passwordless__Register__Expiration: given }).register.expirationSeconds).toBe(seconds);
  });

  it('treats an empty variable as unset', () => {
    expect(resolveSettings({}, { ...keys, Passwordless__ApiUrl: '', Passwordless__Register__Discoverable: '' }).apiUrl).toBe('http://localhost:7001');
  });
});

describe('middleware settings: the options object', () => {
  it('takes every setting from options, nested or in any case, and prefers options to the environment', () => {
    const settings = resolveSettings(
      {
        apiSecret: SECRET,
        ApiKey: PUBLIC,
        apiUrl: 'http://127.0.0.1:9000',
        register: { expiration: '00:10:00', aliasHashing: false, discoverable: 'false', UserVerification: 'required' },
      } as Parameters<typeof resolveSettings>[0],
      { Passwordless__ApiUrl: 'http://ignored.example', Passwordless__Register__Expiration: '00:01:00', Passwordless__Register__Attestation: 'direct' },
    );
    expect(settings.apiUrl).toBe('http://127.0.0.1:9000');
    expect(settings.register).toEqual({
      aliasHashing: false,
      attestation: 'direct',
      authenticatorType: 'any',
      expirationSeconds: 600,
      discoverable: false,
      userVerification: 'required',
      prf: false,
    });
  });
});

describe('middleware settings: refused at start-up with one message naming the key', () => {
  it.each<[string, NodeJS.ProcessEnv, string, RegExp]>([
    ['a missing ApiSecret', { Passwordless__ApiKey: PUBLIC }, 'Passwordless__ApiSecret', /is required/],
    ['a missing ApiKey', { Passwordless__ApiSecret: SECRET }, 'Passwordless__ApiKey', /is required/],
    ['a public key as the secret', { Passwordless__ApiSecret: PUBLIC, Passwordless__ApiKey: PUBLIC }, 'Passwordless__ApiSecret', /<appId>:secret:/],
    ['a secret as the public key', { Passwordless__ApiSecret: SECRET, Passwordless__ApiKey: SECRET }, 'Passwordless__ApiKey', /<appId>:public:/],
    ['a malformed secret', { ...keys, Passwordless__ApiSecret: 'shop:secret:short' }, 'Passwordless__ApiSecret', /<appId>:secret:/],
    ['keys of two apps', { ...keys, Passwordless__ApiKey: 'other:public:fedcba9876543210fedcba9876543210' }, 'Passwordless__ApiKey', /'other'.*'shop'/],
    ['an ApiUrl that is no URL', { ...keys, Passwordless__ApiUrl: 'localhost:7001' }, 'Passwordless__ApiUrl', /http/],
    ['an ApiUrl with another scheme', { ...keys, Passwordless__ApiUrl: 'ftp://example.com' }, 'Passwordless__ApiUrl', /http/],
    ['an ApiUrl with a query', { ...keys, Passwordless__ApiUrl: 'https://example.com/?x=1' }, 'Passwordless__ApiUrl', /query/],
    ['an unknown attestation', { ...keys, Passwordless__Register__Attestation: 'enterprise' }, 'Passwordless__Register__Attestation', /none, direct, indirect/],
    ['an unknown authentication type', { ...keys, Passwordless__Register__AuthenticationType: 'usb' }, 'Passwordless__Register__AuthenticationType', /any, platform, cross-platform/],
    ['an unknown user verification', { ...keys, Passwordless__Register__UserVerification: 'optional' }, 'Passwordless__Register__UserVerification', /discouraged, preferred, required/],
    ['a non-boolean AliasHashing', { ...keys, Passwordless__Register__AliasHashing: 'yes' }, 'Passwordless__Register__AliasHashing', /true or false/],
    ['a non-boolean Discoverable', { ...keys, Passwordless__Register__Discoverable: '1' }, 'Passwordless__Register__Discoverable', /true or false/],
    ['an expiration in minutes', { ...keys, Passwordless__Register__Expiration: '120' }, 'Passwordless__Register__Expiration', /hh:mm:ss/],
    ['a zero expiration', { ...keys, Passwordless__Register__Expiration: '00:00:00' }, 'Passwordless__Register__Expiration', /positive/],
    ['an expiration past 30 days', { ...keys, Passwordless__Register__Expiration: '30.00:00:01' }, 'Passwordless__Register__Expiration', /30 days/],
    ['an expiration with 60 minutes', { ...keys, Passwordless__Register__Expiration: '00:60:00' }, 'Passwordless__Register__Expiration', /hh:mm:ss/],
  ])('%s', (_name, env, key, message) => {
    const error = failure({}, env);
    expect(error.key).toBe(key);
    expect(error.message.startsWith(`${key} `)).toBe(true);
    expect(error.message).toMatch(message);
    expect(error.message.split('\n')).toHaveLength(1);
  });

  it('names an option by its option name', () => {
    const error = failure({ apiSecret: SECRET, apiKey: PUBLIC, register: { userVerification: 'sometimes' } }, {});
    expect(error.key).toBe('register.userVerification');
  });

  it('never echoes a key, even one pasted into the wrong setting', () => {
    for (const env of [
      { Passwordless__ApiSecret: SECRET, Passwordless__ApiKey: SECRET },
      { Passwordless__ApiSecret: `${SECRET}x`, Passwordless__ApiKey: PUBLIC },
      { Passwordless__ApiSecret: PUBLIC, Passwordless__ApiKey: SECRET },
    ]) {
      const error = failure({}, env);
      expect(error.message).not.toContain('0123456789abcdef');
      expect(error.message).not.toContain('fedcba9876543210');
    }
  });
});
