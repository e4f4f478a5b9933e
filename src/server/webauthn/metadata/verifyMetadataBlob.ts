import { SettingsService } from '@simplewebauthn/server';
import { verifyMDSBlob } from '@simplewebauthn/server/helpers';
import { z } from 'zod';
import { utcDayOfDate } from '../../core/utcDay';

/** What the service keeps of one FIDO2 entry of a verified BLOB (statements are large; the rest is dropped). */
export interface MetadataEntry {
  /** Lowercase canonical GUID. */
  aaguid: string;
  /** The statement's description: the authenticator's name. */
  description: string;
  attestationTypes: string[];
  /** Base64 DER certificates an attestation of this authenticator must chain to. */
  attestationRootCertificates: string[];
  /** A data: URL, when the statement has one. */
  icon: string | null;
  /** The statuses of its status reports, in the BLOB's order. */
  statuses: string[];
}

export interface MetadataBlob {
  /** The BLOB's serial number: a newer BLOB has a greater one. */
  no: number;
  /** `yyyy-MM-dd`: when the FIDO Alliance publishes the next one. */
  nextUpdate: string;
  entries: MetadataEntry[];
  /** Entries without an AAGUID (U2F, UAF) or whose statement could not be read. */
  skipped: number;
}

/** A BLOB that must not be used; the message says why (never its content). */
export class MetadataBlobRefused extends Error {
  override name = 'MetadataBlobRefused';
}

/** Header, payload and signature: base64url, separated by dots. */
const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;
const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const payloadSchema = z.looseObject({
  no: z.number().int(),
  nextUpdate: z.string().refine((date) => utcDayOfDate(date) !== undefined, 'must be a yyyy-MM-dd date'),
  entries: z.array(z.unknown()),
});

const entrySchema = z.looseObject({
  aaguid: z.string().regex(GUID),
  metadataStatement: z.looseObject({
    description: z.string(),
    attestationTypes: z.array(z.string()).default([]),
    attestationRootCertificates: z.array(z.string()).default([]),
    icon: z.string().optional(),
  }),
  statusReports: z.array(z.looseObject({ status: z.string() })).default([]),
});

/**
 * Verifies an MDS3 BLOB (a JWT) with SimpleWebAuthn's `verifyMDSBlob`: its certificate chain must
 * reach one of `roots` (PEM) and its signature must hold. Throws MetadataBlobRefused otherwise.
 */
export async function verifyMetadataBlob(jwt: string, roots: readonly string[]): Promise<MetadataBlob> {
  if (!JWT_SHAPE.test(jwt)) throw new MetadataBlobRefused('it is not a JWT (three base64url parts separated by dots)');
  if (!headerCarriesChain(jwt.slice(0, jwt.indexOf('.')))) throw new MetadataBlobRefused('its header carries no certificate chain (x5c)');
  let verified: Awaited<ReturnType<typeof verifyMDSBlob>>;
  try {
    verified = await verifyUnder(roots, jwt);
  } catch (error) {
    // A parser's message quotes the text it choked on: say what failed instead.
    throw new MetadataBlobRefused(error instanceof SyntaxError ? 'its header or payload is not JSON' : (error as Error)?.message || 'the BLOB could not be verified');
  }
  const payload = payloadSchema.safeParse(verified.payload);
  if (!payload.success) throw new MetadataBlobRefused(`the BLOB's payload is malformed (${payload.error.issues[0].path.join('.')})`);
  const entries: MetadataEntry[] = [];
  let skipped = 0;
  for (const raw of payload.data.entries) {
    const entry = entrySchema.safeParse(raw);
    if (!entry.success) {
      skipped++;
      continue;
    }
    const { aaguid, metadataStatement: statement, statusReports } = entry.data;
    entries.push({
      aaguid: aaguid.toLowerCase(),
      description: statement.description,
      attestationTypes: statement.attestationTypes,
      attestationRootCertificates: statement.attestationRootCertificates,
      icon: statement.icon ?? null,
      statuses: statusReports.map((report) => report.status),
    });
  }
  return { no: payload.data.no, nextUpdate: payload.data.nextUpdate, entries, skipped };
}

/** Whether the JWT header is JSON with a non-empty `x5c` of strings (what `verifyMDSBlob` assumes). */
function headerCarriesChain(header: string): boolean {
  try {
    const { x5c } = JSON.parse(Buffer.from(header, 'base64url').toString('utf8')) as { x5c?: unknown };
    return Array.isArray(x5c) && x5c.length > 0 && x5c.every((certificate) => typeof certificate === 'string');
  } catch {
    return false;
  }
}

/**
 * `verifyMDSBlob` takes its roots from SimpleWebAuthn's process-wide settings, and reads them
 * before its first await: setting them just for that synchronous start keeps every service in the
 * process (tests run several) on its own roots.
 */
function verifyUnder(roots: readonly string[], jwt: string): ReturnType<typeof verifyMDSBlob> {
  const previous = SettingsService.getRootCertificates({ identifier: 'mds' });
  SettingsService.setRootCertificates({ identifier: 'mds', certificates: [...roots] });
  try {
    return verifyMDSBlob(jwt);
  } finally {
    SettingsService.setRootCertificates({ identifier: 'mds', certificates: previous });
  }
}
