import { decodeExtensionInputs, extensionResultsForService } from './extensionCeremonies';

describe('decodeExtensionInputs', () => {
  it('turns the base64url PRF salts and a blob to write into bytes, leaving the rest', () => {
    const salt = Buffer.alloc(32, 7).toString('base64url');
    const decoded = decodeExtensionInputs({ prf: { evalByCredential: { cred: { first: salt } } }, largeBlob: { write: 'AQID' }, credProps: true });
    expect(Buffer.from(decoded!.prf.evalByCredential.cred.first)).toEqual(Buffer.alloc(32, 7));
    expect(Buffer.from(decoded!.largeBlob.write)).toEqual(Buffer.from([1, 2, 3]));
    expect(decoded!.credProps).toBe(true);
    expect(decodeExtensionInputs({ prf: {} })).toEqual({ prf: {} });
    expect(decodeExtensionInputs(undefined)).toBeUndefined();
  });

  it('decodes eval with both salts', () => {
    const decoded = decodeExtensionInputs({ prf: { eval: { first: 'AA', second: 'AQ' } } });
    expect([...decoded!.prf.eval.first, ...decoded!.prf.eval.second]).toEqual([0, 1]);
  });
});

describe('extensionResultsForService', () => {
  it('keeps the PRF outputs and a large blob read for the page only', () => {
    const results = { prf: { enabled: true, results: { first: new ArrayBuffer(32) } }, largeBlob: { blob: new ArrayBuffer(4) }, credProps: { rk: true } };
    expect(extensionResultsForService(results)).toEqual({ prf: { enabled: true }, largeBlob: {}, credProps: { rk: true } });
    expect(results.prf.results.first.byteLength).toBe(32); // the page's copy is untouched
  });
});
