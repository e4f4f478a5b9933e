import { MetadataCatalog, undesiredStatusOf } from './metadataCatalog';
import type { MetadataEntry } from './verifyMetadataBlob';

const entry = (aaguid: string, description: string, attestationTypes: string[], statuses: string[]): MetadataEntry => ({
  aaguid,
  description,
  attestationTypes,
  attestationRootCertificates: [],
  icon: description === 'Zeta Key' ? 'data:image/png;base64,AAAA' : null,
  statuses,
});

const catalog = new MetadataCatalog({
  no: 7,
  nextUpdate: '2026-12-01',
  skipped: 1,
  entries: [
    entry('33333333-3333-4333-8333-333333333333', 'Zeta Key', ['basic_full', 'attca'], ['FIDO_CERTIFIED_L2', 'FIDO_CERTIFIED_L1', 'FIDO_CERTIFIED_L2']),
    entry('11111111-1111-4111-8111-111111111111', 'Alpha Key', ['basic_surrogate'], ['NOT_FIDO_CERTIFIED']),
    entry('22222222-2222-4222-8222-222222222222', 'Mu Key', ['basic_full'], ['FIDO_CERTIFIED_L1', 'USER_VERIFICATION_BYPASS']),
  ],
});

describe('the metadata catalog', () => {
  it('lists entries by name, each with its sorted distinct statuses and attestation types', () => {
    expect(catalog.list()).toEqual([
      { aaGuid: '11111111-1111-4111-8111-111111111111', name: 'Alpha Key', certificationStatuses: ['NOT_FIDO_CERTIFIED'], attestationTypes: ['basic_surrogate'], icon: null },
      { aaGuid: '22222222-2222-4222-8222-222222222222', name: 'Mu Key', certificationStatuses: ['FIDO_CERTIFIED_L1', 'USER_VERIFICATION_BYPASS'], attestationTypes: ['basic_full'], icon: null },
      { aaGuid: '33333333-3333-4333-8333-333333333333', name: 'Zeta Key', certificationStatuses: ['FIDO_CERTIFIED_L1', 'FIDO_CERTIFIED_L2'], attestationTypes: ['attca', 'basic_full'], icon: 'data:image/png;base64,AAAA' },
    ]);
    expect(catalog.size).toBe(3);
  });

  it('lists every attestation type and status once, sorted', () => {
    expect(catalog.attestationTypes).toEqual(['attca', 'basic_full', 'basic_surrogate']);
    expect(catalog.certificationStatuses).toEqual(['FIDO_CERTIFIED_L1', 'FIDO_CERTIFIED_L2', 'NOT_FIDO_CERTIFIED', 'USER_VERIFICATION_BYPASS']);
  });

  it('filters match any of their values, and both filters must match', () => {
    const names = (filter: Parameters<MetadataCatalog['list']>[0]) => catalog.list(filter).map((e) => e.name);
    expect(names({ attestationTypes: ['basic_full'] })).toEqual(['Mu Key', 'Zeta Key']);
    expect(names({ attestationTypes: ['attca', 'basic_surrogate'] })).toEqual(['Alpha Key', 'Zeta Key']);
    expect(names({ certificationStatuses: ['FIDO_CERTIFIED_L2', 'NOT_FIDO_CERTIFIED'] })).toEqual(['Alpha Key', 'Zeta Key']);
    expect(names({ attestationTypes: ['basic_full'], certificationStatuses: ['FIDO_CERTIFIED_L2'] })).toEqual(['Zeta Key']);
    expect(names({ attestationTypes: ['ecdaa'] })).toEqual([]);
    expect(names({ attestationTypes: [], certificationStatuses: [] })).toEqual(['Alpha Key', 'Mu Key', 'Zeta Key']);
  });

  it('finds an entry by its AAGUID in any case', () => {
    expect(catalog.entryOf('33333333-3333-4333-8333-333333333333'.toUpperCase())?.description).toBe('Zeta Key');
    expect(catalog.entryOf('44444444-4444-4444-8444-444444444444')).toBeUndefined();
  });

  it('names the status report that makes an authenticator unwelcome, whatever its position', () => {
    expect(undesiredStatusOf(catalog.entryOf('22222222-2222-4222-8222-222222222222'))).toBe('USER_VERIFICATION_BYPASS');
    expect(undesiredStatusOf(catalog.entryOf('33333333-3333-4333-8333-333333333333'))).toBeUndefined();
    expect(undesiredStatusOf(undefined)).toBeUndefined();
    for (const status of ['ATTESTATION_KEY_COMPROMISE', 'USER_KEY_REMOTE_COMPROMISE', 'USER_KEY_PHYSICAL_COMPROMISE', 'REVOKED']) {
      expect(undesiredStatusOf(entry('55555555-5555-4555-8555-555555555555', 'X', [], ['FIDO_CERTIFIED', status]))).toBe(status);
    }
  });
});
