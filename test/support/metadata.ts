import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { aaguidBytes, type CreateOptions } from './softwareAuthenticator';
import { blobPayload, signBlob, type TestEntry, type TestPki } from './testPki';

/** The authenticators of the test BLOB, by AAGUID. */
export const KEYS = {
  /** A security key the metadata vouches for (attestation under the vendor root). */
  trusted: '6d44ba9b-f6ec-2e49-b930-0c8fe920cb73',
  /** Another certified one of the same vendor. */
  other: 'ee882879-721c-4913-9775-3dfcce97072a',
  /** Reported compromised after its certification. */
  compromised: 'fa2b99dc-9e39-4257-8f92-4a30d23c4118',
  /** Withdrawn by the FIDO Alliance. */
  revoked: '2fc0579f-8113-47ea-b116-bb5a8db9202a',
  /** Not in the metadata at all. */
  unknown: '00112233-4455-6677-8899-aabbccddeeff',
} as const;

export const ICON = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

/** The entries of the test BLOB: names chosen so that the name order differs from the AAGUID order. */
export function testEntries(): TestEntry[] {
  return [
    { aaguid: KEYS.trusted, description: 'Test Security Key', statusReports: [{ status: 'FIDO_CERTIFIED_L1' }], icon: ICON },
    { aaguid: KEYS.other.toUpperCase(), description: 'Another Key', attestationTypes: ['basic_full', 'attca'], statusReports: [{ status: 'FIDO_CERTIFIED_L2' }] },
    { aaguid: KEYS.compromised, description: 'Broken Key', statusReports: [{ status: 'FIDO_CERTIFIED_L1' }, { status: 'ATTESTATION_KEY_COMPROMISE' }] },
    { aaguid: KEYS.revoked, description: 'Withdrawn Key', attestationTypes: ['basic_surrogate'], statusReports: [{ status: 'NOT_FIDO_CERTIFIED' }, { status: 'REVOKED' }] },
  ];
}

/** A BLOB of the test entries (or `entries`) signed under the test metadata root. */
export function testBlob(pki: TestPki, options: { no?: number; nextUpdate?: string; entries?: TestEntry[] } = {}): string {
  return signBlob(pki.blobSigner, blobPayload(pki, { no: options.no ?? 1, nextUpdate: options.nextUpdate ?? '2099-01-01', entries: options.entries ?? testEntries() }));
}

/** Writes `blob` as a file in the PKI's folder; returns its path. */
export function writeBlob(pki: TestPki, name: string, blob: string): string {
  const path = join(pki.dir, name);
  writeFileSync(path, blob);
  return path;
}

/** The environment of a service that reads `blobFile` and trusts the test metadata root. */
export const metadataEnv = (pki: TestPki, blobFile: string): Record<string, string> => ({ MDS_BLOB_FILE: blobFile, MDS_TRUSTED_ROOTS_FILE: pki.metadataRootFile });

/** Software-authenticator options for a `packed` attestation of `aaguid`, signed by `signer` (default: the vendor's attestation certificate). */
export function packedAttestation(pki: TestPki, aaguid: string, signer = pki.attestation): Partial<CreateOptions> {
  return { fmt: 'packed', aaguid: aaguidBytes(aaguid), attestation: { privateKey: signer.privateKey, certificates: [signer.der] } };
}

/** The same authenticator with no attestation: `none`, the AAGUID only claimed. */
export const claimed = (aaguid: string): Partial<CreateOptions> => ({ fmt: 'none', aaguid: aaguidBytes(aaguid) });
