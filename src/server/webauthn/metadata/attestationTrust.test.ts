import { aaguidBytes, createCredential } from '../../../../test/support/softwareAuthenticator';
import { createTestPki, type TestCertificate, type TestPki } from '../../../../test/support/testPki';
import { attestationTrustOf } from './attestationTrust';
import type { MetadataEntry } from './verifyMetadataBlob';

const KEY = '6d44ba9b-f6ec-2e49-b930-0c8fe920cb73';

describe('attestation trust against the metadata', () => {
  let pki: TestPki;
  let entry: MetadataEntry;
  beforeAll(() => {
    pki = createTestPki();
    entry = { aaguid: KEY, description: 'Test Key', attestationTypes: ['basic_full'], attestationRootCertificates: [pki.vendorRoot.der.toString('base64')], icon: null, statuses: [] };
  });
  afterAll(() => pki.remove());

  /** An attestation object as the authenticator sends it, signed by `signer` with `chain` as x5c. */
  const attestationObject = (signer?: TestCertificate, chain: Buffer[] = signer ? [signer.der] : []) => {
    const { response } = createCredential({
      challenge: 'Y2hhbGxlbmdl',
      rpId: 'example.com',
      origin: 'https://example.com',
      userHandle: 'dQ',
      fmt: signer ? 'packed' : 'none',
      aaguid: aaguidBytes(KEY),
      attestation: signer && { privateKey: signer.privateKey, certificates: chain },
    });
    return new Uint8Array(Buffer.from((response.response as { AttestationObject: string }).AttestationObject, 'base64url'));
  };

  it('is verified when the attestation certificate chains to a root the entry lists', async () => {
    expect(await attestationTrustOf(entry, attestationObject(pki.attestation))).toEqual({ verdict: 'verified' });
  });

  it('is untrusted when the chain reaches another root, or the entry lists none', async () => {
    expect(await attestationTrustOf(entry, attestationObject(pki.rogueAttestation))).toEqual({ verdict: 'untrusted', reason: expect.stringContaining('x5c could not be chained') });
    expect(await attestationTrustOf({ ...entry, attestationRootCertificates: [] }, attestationObject(pki.attestation))).toEqual({
      verdict: 'untrusted',
      reason: 'the metadata lists no attestation root for this authenticator',
    });
  });

  it('refuses a chain longer than a real one without building it', async () => {
    const long = Array.from({ length: 6 }, () => pki.attestation.der);
    expect(await attestationTrustOf(entry, attestationObject(pki.attestation, long))).toEqual({ verdict: 'untrusted', reason: 'the certificate chain is longer than 5 certificates' });
  });

  it('vouches for a lone certificate that is itself one of the roots', async () => {
    expect(await attestationTrustOf({ ...entry, attestationRootCertificates: [pki.attestation.der.toString('base64')] }, attestationObject(pki.attestation))).toEqual({ verdict: 'verified' });
  });

  it('has nothing to check without a certificate chain or without an entry', async () => {
    expect(await attestationTrustOf(entry, attestationObject())).toEqual({ verdict: 'unverifiable' });
    expect(await attestationTrustOf(undefined, attestationObject(pki.attestation))).toEqual({ verdict: 'unverifiable' });
  });
});
