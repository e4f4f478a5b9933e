import { SettingsService } from '@simplewebauthn/server';
import { blobPayload, createTestPki, signBlob, tamperBlob, type TestPki } from '../../../../test/support/testPki';
import { FIDO_METADATA_ROOTS } from './fidoRootCertificates';
import { MetadataBlobRefused, verifyMetadataBlob } from './verifyMetadataBlob';

const KEY = '6D44BA9B-F6EC-2E49-B930-0C8FE920CB73';

describe('verifying a metadata BLOB', () => {
  let pki: TestPki;
  let blob: string;
  let roots: string[];
  beforeAll(() => {
    pki = createTestPki();
    roots = [...FIDO_METADATA_ROOTS, pki.metadataRoot.pem];
    blob = signBlob(
      pki.blobSigner,
      blobPayload(pki, {
        no: 42,
        nextUpdate: '2026-12-01',
        entries: [{ aaguid: KEY, description: 'Test Key', statusReports: [{ status: 'FIDO_CERTIFIED_L1' }, { status: 'UPDATE_AVAILABLE' }] }],
      }),
    );
  });
  afterAll(() => pki.remove());

  it('keeps the FIDO2 entries of a BLOB signed under a trusted root, AAGUIDs lowercased', async () => {
    const verified = await verifyMetadataBlob(blob, roots);
    expect(verified).toEqual({
      no: 42,
      nextUpdate: '2026-12-01',
      skipped: 1, // the U2F entry, which has no AAGUID
      entries: [
        {
          aaguid: KEY.toLowerCase(),
          description: 'Test Key',
          attestationTypes: ['basic_full'],
          attestationRootCertificates: [pki.vendorRoot.der.toString('base64')],
          icon: null,
          statuses: ['FIDO_CERTIFIED_L1', 'UPDATE_AVAILABLE'],
        },
      ],
    });
  });

  it('refuses it under the FIDO roots alone, and refuses a signer under a root nobody trusts', async () => {
    await expect(verifyMetadataBlob(blob, FIDO_METADATA_ROOTS)).rejects.toThrow(MetadataBlobRefused);
    const stranger = signBlob(pki.strangerSigner, blobPayload(pki, { no: 43, nextUpdate: '2026-12-01', entries: [] }));
    await expect(verifyMetadataBlob(stranger, roots)).rejects.toThrow('BLOB certificate path could not be validated');
  });

  it('refuses a BLOB changed after signing', async () => {
    const tampered = tamperBlob(blob, (payload) => {
      payload.no = 999;
    });
    await expect(verifyMetadataBlob(tampered, roots)).rejects.toThrow('BLOB signature could not be verified');
  });

  it('refuses what is no BLOB at all, and a signed payload without its serial number or date', async () => {
    for (const garbage of ['', 'not a jwt', `${Buffer.from('{}').toString('base64url')}.e30.`, 'x'.repeat(1000), `${blob}\n${blob}`]) {
      await expect(verifyMetadataBlob(garbage, roots)).rejects.toThrow('it is not a JWT');
    }
    const [header, payload, signature] = blob.split('.');
    await expect(verifyMetadataBlob(`a.${payload}.${signature}`, roots)).rejects.toThrow('its header carries no certificate chain (x5c)');
    await expect(verifyMetadataBlob(`${Buffer.from('{"alg":"ES256"}').toString('base64url')}.${payload}.${signature}`, roots)).rejects.toThrow('its header carries no certificate chain (x5c)');
    await expect(verifyMetadataBlob(`${header}.e30x.${signature}`, roots)).rejects.toThrow('its header or payload is not JSON');
    await expect(verifyMetadataBlob(signBlob(pki.blobSigner, { no: 1, entries: [] }), roots)).rejects.toThrow(MetadataBlobRefused);
    await expect(verifyMetadataBlob(signBlob(pki.blobSigner, { no: 1.5, nextUpdate: "2026-12-01", entries: [] }), roots)).rejects.toThrow("payload is malformed (no)");
    await expect(verifyMetadataBlob(signBlob(pki.blobSigner, { no: 1, nextUpdate: '2026-02-30', entries: [] }), roots)).rejects.toThrow('payload is malformed');
  });

  it("uses only the roots it is given, even when two verifications run at once, and leaves SimpleWebAuthn's own MDS roots as they were", async () => {
    const before = SettingsService.getRootCertificates({ identifier: 'mds' });
    const [trusted, untrusted] = await Promise.allSettled([verifyMetadataBlob(blob, roots), verifyMetadataBlob(blob, FIDO_METADATA_ROOTS)]);
    expect(trusted.status).toBe('fulfilled');
    expect(untrusted.status).toBe('rejected');
    expect(SettingsService.getRootCertificates({ identifier: 'mds' })).toEqual(before);
  });
});
