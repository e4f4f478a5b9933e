import { creationOptionsOf, decodeExtensionInputs, extensionResultsForService, fromBase64Url, registrationCompleteBody, requestOptionsOf, signinCompleteBody, toBase64Url } from './webauthnJson';

const bytes = (...values: number[]) => new Uint8Array(values);

describe('the published client wire format', () => {
  it('round-trips base64url without padding, as the client encodes it', () => {
    for (const value of [bytes(), bytes(0xfb), bytes(0xfb, 0xff), bytes(0xfb, 0xff, 0xbf), bytes(...Array.from({ length: 257 }, (_, i) => i % 256))]) {
      const encoded = toBase64Url(value);
      expect(encoded).toBe(Buffer.from(value).toString('base64url'));
      expect(Array.from(fromBase64Url(encoded))).toEqual(Array.from(value));
    }
    expect(toBase64Url(bytes(1, 2, 3, 4).subarray(1, 3))).toBe(Buffer.from([2, 3]).toString('base64url'));
  });

  it('turns begin data into the options navigator.credentials takes (challenge, user id, credential ids as bytes)', () => {
    const id = Buffer.from('credential').toString('base64url');
    const creation = creationOptionsOf({ challenge: 'AQID', rp: { id: 'localhost', name: 'x' }, user: { id: 'dXNlcg', name: 'u', displayName: 'U' }, excludeCredentials: [{ id, type: 'public-key' }] });
    expect(Array.from(creation.challenge as Uint8Array)).toEqual([1, 2, 3]);
    expect(Buffer.from(creation.user.id as Uint8Array).toString()).toBe('user');
    expect(Buffer.from(creation.excludeCredentials![0].id as Uint8Array).toString()).toBe('credential');
    expect(creation.rp).toEqual({ id: 'localhost', name: 'x' });
    const request = requestOptionsOf({ challenge: 'AQID', rpId: 'localhost', allowCredentials: [] });
    expect(Array.from(request.challenge as Uint8Array)).toEqual([1, 2, 3]);
    expect(request.allowCredentials).toEqual([]);
  });

  it('writes the complete bodies with the field names the client sends (AttestationObject, clientDataJson, RPID, Origin)', () => {
    const site = { rpId: 'localhost', origin: 'http://localhost:3000' };
    const common = { id: 'AQI', rawId: bytes(1, 2).buffer, type: 'public-key', getClientExtensionResults: () => ({ credProps: { rk: true } }) };
    const created = { ...common, response: { attestationObject: bytes(3).buffer, clientDataJSON: bytes(4).buffer } } as unknown as PublicKeyCredential;
    expect(registrationCompleteBody(created, 'session_x', 'Laptop', site)).toEqual({
      session: 'session_x',
      response: { id: 'AQI', rawId: 'AQI', type: 'public-key', clientExtensionResults: { credProps: { rk: true } }, response: { AttestationObject: 'Aw', clientDataJson: 'BA' } },
      nickname: 'Laptop',
      RPID: 'localhost',
      Origin: 'http://localhost:3000',
    });
    const asserted = { ...common, response: { authenticatorData: bytes(5).buffer, clientDataJSON: bytes(6).buffer, signature: bytes(7).buffer } } as unknown as PublicKeyCredential;
    expect(signinCompleteBody(asserted, 'session_y', site).response.response).toEqual({ authenticatorData: 'BQ', clientDataJson: 'Bg', signature: 'Bw' });
  });

  it('decodes the extension inputs in both options: the PRF salts the browser evaluates are bytes', () => {
    const salt = Buffer.alloc(32, 9).toString('base64url');
    const creation = creationOptionsOf({ challenge: 'AQID', user: { id: 'dXNlcg', name: 'u', displayName: 'U' }, extensions: { prf: { eval: { first: salt } }, credProps: true } });
    expect(Buffer.from((creation.extensions as any).prf.eval.first)).toEqual(Buffer.alloc(32, 9));
    expect(creation.extensions!.credProps).toBe(true);
    const request = requestOptionsOf({ challenge: 'AQID', extensions: { prf: { evalByCredential: { AQI: { first: salt } } } } });
    expect(Buffer.from((request.extensions as any).prf.evalByCredential.AQI.first)).toEqual(Buffer.alloc(32, 9));
    expect(requestOptionsOf({ challenge: 'AQID' }).extensions).toBeUndefined();
  });

  it('posts no PRF output and no large blob read in either complete body; the page keeps them', () => {
    const site = { rpId: 'localhost', origin: 'http://localhost:3000' };
    const results = { prf: { enabled: true, results: { first: new ArrayBuffer(32) } }, largeBlob: { supported: true, blob: new ArrayBuffer(4) } };
    const common = { id: 'AQI', rawId: bytes(1, 2).buffer, type: 'public-key', getClientExtensionResults: () => results };
    const created = { ...common, response: { attestationObject: bytes(3).buffer, clientDataJSON: bytes(4).buffer } } as unknown as PublicKeyCredential;
    const asserted = { ...common, response: { authenticatorData: bytes(5).buffer, clientDataJSON: bytes(6).buffer, signature: bytes(7).buffer } } as unknown as PublicKeyCredential;
    const posted = { prf: { enabled: true }, largeBlob: { supported: true } };
    expect(registrationCompleteBody(created, 's', undefined, site).response.clientExtensionResults).toEqual(posted);
    expect(signinCompleteBody(asserted, 's', site).response.clientExtensionResults).toEqual(posted);
    expect(results.prf.results.first.byteLength).toBe(32);
  });
});

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
