import { X509Certificate } from 'node:crypto';
import { FIDO_METADATA_ROOTS, GLOBALSIGN_ROOT_CA_R3, GLOBALSIGN_ROOT_R46 } from './fidoRootCertificates';

describe('the bundled FIDO metadata roots', () => {
  it('are the GlobalSign roots, by their published SHA-256 fingerprints, self-signed CAs', () => {
    const r3 = new X509Certificate(GLOBALSIGN_ROOT_CA_R3);
    const r46 = new X509Certificate(GLOBALSIGN_ROOT_R46);
    expect(r3.fingerprint256).toBe('CB:B5:22:D7:B7:F1:27:AD:6A:01:13:86:5B:DF:1C:D4:10:2E:7D:07:59:AF:63:5A:7C:F4:72:0D:C9:63:C5:3B');
    expect(r46.fingerprint256).toBe('4F:A3:12:6D:8D:3A:11:D1:C4:85:5A:4F:80:7C:BA:D6:CF:91:9D:3A:5A:88:B0:3B:EA:2C:63:72:D9:3C:40:C9');
    for (const root of [r3, r46]) {
      expect(root.ca).toBe(true);
      expect(root.verify(root.publicKey)).toBe(true);
    }
    expect(FIDO_METADATA_ROOTS).toEqual([GLOBALSIGN_ROOT_CA_R3, GLOBALSIGN_ROOT_R46]);
  });
});
