import { withoutSecretExtensionResults } from './withoutSecretExtensionResults';

describe('withoutSecretExtensionResults', () => {
  it('drops PRF outputs and a large blob read, keeping what the service reads', () => {
    expect(
      withoutSecretExtensionResults({ credProps: { rk: true }, prf: { enabled: true, results: { first: 'secret', second: 'secret2' } }, largeBlob: { supported: true, blob: 'data' } }),
    ).toEqual({ credProps: { rk: true }, prf: { enabled: true }, largeBlob: { supported: true } });
  });

  it('passes anything else through as it came', () => {
    expect(withoutSecretExtensionResults({ appid: false, prf: 'odd', largeBlob: ['x'] })).toEqual({ appid: false, prf: 'odd', largeBlob: ['x'] });
    expect(withoutSecretExtensionResults({})).toEqual({});
  });
});
