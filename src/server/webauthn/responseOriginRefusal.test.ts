import { responseOriginRefusal } from './responseOriginRefusal';

const clientData = (origin: unknown) => Buffer.from(JSON.stringify({ type: 'webauthn.get', challenge: 'x', origin })).toString('base64url');
const session = { origin: 'http://app.example.com', rpId: 'app.example.com' };

describe('responseOriginRefusal', () => {
  it("names the ceremony's origin, the signed one and the cause of an origin refusal", () => {
    const error = new Error('Unexpected authentication response origin "https://app.example.com", expected "http://app.example.com"');
    expect(responseOriginRefusal(error, session, clientData('https://app.example.com'))).toEqual({
      refused: 'origin',
      expectedOrigins: ['http://app.example.com'],
      receivedOrigin: 'https://app.example.com',
      rpId: 'app.example.com',
      cause: 'scheme_mismatch',
      hint: expect.stringContaining('https://app.example.com'),
    });
  });

  it('reports an RP ID hash refusal as rp_id_mismatch', () => {
    expect(responseOriginRefusal(new Error('Unexpected RP ID hash'), session, clientData('http://app.example.com'))).toMatchObject({ refused: 'rp_id', cause: 'rp_id_mismatch' });
  });

  it('says nothing of other failures, and copes with client data that is not JSON', () => {
    expect(responseOriginRefusal(new Error('Unexpected authentication response challenge'), session, clientData('x'))).toBeUndefined();
    expect(responseOriginRefusal(new Error('Unexpected registration response origin "x", expected "y"'), session, 'bm90IGpzb24')).toMatchObject({ receivedOrigin: null, cause: 'no_origin' });
  });
});
