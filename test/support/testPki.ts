import { execFileSync } from 'node:child_process';
import { createPrivateKey, randomBytes, sign, type KeyObject } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A PKI made at test time with the openssl command line (node:crypto cannot issue certificates):
 * a metadata root the service is told to trust (MDS_TRUSTED_ROOTS_FILE), a BLOB signer under it,
 * an authenticator vendor's attestation root (listed in the BLOB) with an attestation certificate
 * under it, and a rogue root with an attestation certificate the metadata never vouches for.
 */
export interface TestCertificate {
  pem: string;
  der: Buffer;
  privateKey: KeyObject;
}

export interface TestPki {
  dir: string;
  metadataRoot: TestCertificate;
  /** The metadata root's PEM file, for MDS_TRUSTED_ROOTS_FILE. */
  metadataRootFile: string;
  blobSigner: TestCertificate;
  /** A signer under a root nobody configured. */
  strangerSigner: TestCertificate;
  vendorRoot: TestCertificate;
  /** Packed attestation certificate under vendorRoot (OU "Authenticator Attestation", not a CA). */
  attestation: TestCertificate;
  /** The same, under a root no metadata lists. */
  rogueAttestation: TestCertificate;
  remove(): void;
}

const TMP_ROOT = join(__dirname, '..', '..', '.test-tmp');
const openssl = (args: string[]) => execFileSync('openssl', args, { stdio: ['ignore', 'pipe', 'pipe'] });

const CA_EXTENSIONS = 'basicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign,cRLSign\nsubjectKeyIdentifier=hash\n';
const LEAF_EXTENSIONS = 'basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\nsubjectKeyIdentifier=hash\nauthorityKeyIdentifier=keyid\n';

function certificateOf(dir: string, name: string): TestCertificate {
  const pem = readFileSync(join(dir, `${name}.pem`), 'utf8');
  const der = openssl(['x509', '-in', join(dir, `${name}.pem`), '-outform', 'DER']);
  return { pem, der, privateKey: createPrivateKey(readFileSync(join(dir, `${name}.key`), 'utf8')) };
}

function newKey(dir: string, name: string): string {
  const keyFile = join(dir, `${name}.key`);
  openssl(['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', keyFile]);
  return keyFile;
}

/** openssl req needs a [req] section even when -subj names the subject. */
const config = (extensions: string) => `[req]\ndistinguished_name=dn\n[dn]\n[v3]\n${extensions}`;
const serial = () => `0x${randomBytes(8).toString('hex')}`;

function selfSignedCa(dir: string, name: string, subject: string): TestCertificate {
  const keyFile = newKey(dir, name);
  const cnf = join(dir, `${name}.cnf`);
  writeFileSync(cnf, config(CA_EXTENSIONS));
  openssl(['req', '-x509', '-new', '-key', keyFile, '-subj', subject, '-days', '3650', '-sha256', '-config', cnf, '-extensions', 'v3', '-set_serial', serial(), '-out', join(dir, `${name}.pem`)]);
  return certificateOf(dir, name);
}

function issued(dir: string, name: string, subject: string, issuer: string): TestCertificate {
  const keyFile = newKey(dir, name);
  const csr = join(dir, `${name}.csr`);
  const cnf = join(dir, `${name}.cnf`);
  writeFileSync(cnf, config(LEAF_EXTENSIONS));
  openssl(['req', '-new', '-key', keyFile, '-subj', subject, '-config', cnf, '-out', csr]);
  openssl([
    'x509', '-req', '-in', csr, '-CA', join(dir, `${issuer}.pem`), '-CAkey', join(dir, `${issuer}.key`), '-set_serial', serial(),
    '-days', '3650', '-sha256', '-extfile', cnf, '-extensions', 'v3', '-out', join(dir, `${name}.pem`),
  ]);
  return certificateOf(dir, name);
}

export function createTestPki(): TestPki {
  const dir = join(TMP_ROOT, `pki-${randomBytes(4).toString('hex')}`);
  mkdirSync(dir, { recursive: true });
  const metadataRoot = selfSignedCa(dir, 'metadataRoot', '/C=SE/O=Test Metadata Alliance/CN=Test Metadata Root');
  selfSignedCa(dir, 'strangerRoot', '/C=SE/O=Nobody Trusts Me/CN=Stranger Root');
  const vendorRoot = selfSignedCa(dir, 'vendorRoot', '/C=SE/O=Test Key Vendor/CN=Test Vendor Attestation Root');
  selfSignedCa(dir, 'rogueRoot', '/C=SE/O=Rogue Key Vendor/CN=Rogue Attestation Root');
  const attestationSubject = (vendor: string) => `/C=SE/O=${vendor}/OU=Authenticator Attestation/CN=Test Key Attestation`;
  return {
    dir,
    metadataRoot,
    metadataRootFile: join(dir, 'metadataRoot.pem'),
    blobSigner: issued(dir, 'blobSigner', '/C=SE/O=Test Metadata Alliance/CN=Test Metadata BLOB Signer', 'metadataRoot'),
    strangerSigner: issued(dir, 'strangerSigner', '/C=SE/O=Nobody Trusts Me/CN=Stranger BLOB Signer', 'strangerRoot'),
    vendorRoot,
    attestation: issued(dir, 'attestation', attestationSubject('Test Key Vendor'), 'vendorRoot'),
    rogueAttestation: issued(dir, 'rogueAttestation', attestationSubject('Rogue Key Vendor'), 'rogueRoot'),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

export interface TestStatus {
  status: string;
  effectiveDate?: string;
}

export interface TestEntry {
  aaguid: string;
  description: string;
  attestationTypes?: string[];
  /** Base64 DER roots; default: the vendor root. */
  attestationRootCertificates?: string[];
  statusReports?: TestStatus[];
  icon?: string;
}

/** An MDS3 BLOB payload as the FIDO Alliance publishes it, with the fields the service reads and the usual others. */
export function blobPayload(pki: TestPki, options: { no: number; nextUpdate: string; entries: TestEntry[] }) {
  return {
    legalHeader: 'Test metadata, not for production.',
    no: options.no,
    nextUpdate: options.nextUpdate,
    entries: [
      ...options.entries.map((entry) => ({
        aaguid: entry.aaguid,
        metadataStatement: {
          legalHeader: 'Test metadata, not for production.',
          aaguid: entry.aaguid,
          description: entry.description,
          authenticatorVersion: 1,
          protocolFamily: 'fido2',
          schema: 3,
          upv: [{ major: 1, minor: 1 }],
          authenticationAlgorithms: ['secp256r1_ecdsa_sha256_raw'],
          publicKeyAlgAndEncodings: ['cose'],
          attestationTypes: entry.attestationTypes ?? ['basic_full'],
          userVerificationDetails: [[{ userVerificationMethod: 'presence_internal' }]],
          keyProtection: ['hardware', 'secure_element'],
          matcherProtection: ['on_chip'],
          tcDisplay: [],
          attestationRootCertificates: entry.attestationRootCertificates ?? [pki.vendorRoot.der.toString('base64')],
          ...(entry.icon ? { icon: entry.icon } : {}),
        },
        statusReports: entry.statusReports ?? [{ status: 'FIDO_CERTIFIED_L1', effectiveDate: '2026-01-01' }],
        timeOfLastStatusChange: '2026-01-01',
      })),
      // A U2F entry (no AAGUID): present in every real BLOB, never listed by the service.
      { attestationCertificateKeyIdentifiers: ['0123456789abcdef0123456789abcdef01234567'], statusReports: [{ status: 'FIDO_CERTIFIED' }], timeOfLastStatusChange: '2026-01-01' },
    ],
  };
}

/** A signed BLOB: a JWT (ES256) whose `x5c` carries the signer's certificate. */
export function signBlob(signer: TestCertificate, payload: object): string {
  const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const signingInput = `${encode({ alg: 'ES256', typ: 'JWT', x5c: [signer.der.toString('base64')] })}.${encode(payload)}`;
  const signature = sign('sha256', Buffer.from(signingInput), { key: signer.privateKey, dsaEncoding: 'ieee-p1363' });
  return `${signingInput}.${signature.toString('base64url')}`;
}

/** The same BLOB with its payload changed after signing: the signature no longer holds. */
export function tamperBlob(jwt: string, change: (payload: Record<string, unknown>) => void): string {
  const [header, body, signature] = jwt.split('.');
  const payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Record<string, unknown>;
  change(payload);
  return `${header}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${signature}`;
}
