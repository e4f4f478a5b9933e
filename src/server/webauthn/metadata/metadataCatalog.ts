import type { MetadataBlob, MetadataEntry } from './verifyMetadataBlob';

/** One element of `GET /mds/entries`. */
export interface MetadataEntryView {
  aaGuid: string;
  name: string;
  certificationStatuses: string[];
  attestationTypes: string[];
  icon: string | null;
}

export interface MetadataFilter {
  attestationTypes?: readonly string[];
  certificationStatuses?: readonly string[];
}

/**
 * Statuses a status report gives a compromised or withdrawn authenticator: such an authenticator
 * is refused at registration.
 */
export const UNDESIRED_STATUSES: readonly string[] = [
  'ATTESTATION_KEY_COMPROMISE',
  'USER_VERIFICATION_BYPASS',
  'USER_KEY_REMOTE_COMPROMISE',
  'USER_KEY_PHYSICAL_COMPROMISE',
  'REVOKED',
];

const sortedDistinct = (values: Iterable<string>) => [...new Set(values)].sort();

const byName = (a: MetadataEntryView, b: MetadataEntryView) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.aaGuid < b.aaGuid ? -1 : 1);

/** The FIDO2 entries of one verified BLOB, by AAGUID, with the listings `/mds/*` answers. */
export class MetadataCatalog {
  private readonly byAaguid: ReadonlyMap<string, MetadataEntry>;
  /** Sorted by name; built once, since every listing is read from it. */
  private readonly views: readonly MetadataEntryView[];
  readonly attestationTypes: readonly string[];
  readonly certificationStatuses: readonly string[];

  constructor(readonly blob: MetadataBlob) {
    this.byAaguid = new Map(blob.entries.map((entry) => [entry.aaguid, entry]));
    this.views = [...this.byAaguid.values()]
      .map((entry) => ({
        aaGuid: entry.aaguid,
        name: entry.description,
        certificationStatuses: sortedDistinct(entry.statuses),
        attestationTypes: sortedDistinct(entry.attestationTypes),
        icon: entry.icon,
      }))
      .sort(byName);
    this.attestationTypes = sortedDistinct(this.views.flatMap((view) => view.attestationTypes));
    this.certificationStatuses = sortedDistinct(this.views.flatMap((view) => view.certificationStatuses));
  }

  get size(): number {
    return this.byAaguid.size;
  }

  /** The entry of an AAGUID (any case), if the BLOB has one. */
  entryOf(aaguid: string): MetadataEntry | undefined {
    return this.byAaguid.get(aaguid.toLowerCase());
  }

  /** Entries sorted by name; each filter, when given and non-empty, keeps entries with any of its values. */
  list(filter: MetadataFilter = {}): MetadataEntryView[] {
    const matches = (wanted: readonly string[] | undefined, values: readonly string[]) => !wanted?.length || values.some((value) => wanted.includes(value));
    return this.views.filter((view) => matches(filter.attestationTypes, view.attestationTypes) && matches(filter.certificationStatuses, view.certificationStatuses));
  }
}

/** The first status report of an entry that marks it compromised or revoked, if any. */
export function undesiredStatusOf(entry: MetadataEntry | undefined): string | undefined {
  return entry?.statuses.find((status) => UNDESIRED_STATUSES.includes(status));
}
