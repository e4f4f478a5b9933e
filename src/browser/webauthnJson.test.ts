import { creationOptionsOf, fromBase64Url, registrationCompleteBody, requestOptionsOf, signinCompleteBody, toBase64Url } from './webauthnJson';

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
});
