import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Logger } from 'pino';
import { utcDayOf, utcDayOfDate } from '../../core/utcDay';
import { FIDO_METADATA_ROOTS } from '../../webauthn/metadata/fidoRootCertificates';
import { MetadataCatalog } from '../../webauthn/metadata/metadataCatalog';
import { verifyMetadataBlob, type MetadataBlob } from '../../webauthn/metadata/verifyMetadataBlob';
import { MAX_BLOB_BYTES, downloadMetadataBlob } from './downloadMetadataBlob';

export interface MetadataSources {
  /** The BLOB on disk (MDS_BLOB_FILE); with `url`, also where each verified download is kept. */
  blobFile: string | undefined;
  /** MDS_URL: downloaded when there is no BLOB yet or the one in use is past its nextUpdate. */
  url: string | undefined;
  /** PEM roots of MDS_TRUSTED_ROOTS_FILE, trusted beside the bundled FIDO roots. */
  trustedRoots: readonly string[];
}

type Source = 'MDS_BLOB_FILE' | 'MDS_URL';

/** What identifies one version of the file on disk, so an unchanged file is not verified again. */
const stampOf = (info: { mtimeMs: number; size: number }) => `${info.mtimeMs}:${info.size}`;

/** What an `AuthenticatorMetadata` is built from. */
export interface AuthenticatorMetadataDeps {
  sources: MetadataSources;
  logger: Logger;
  now?: () => number;
  download?: (url: string, signal: AbortSignal) => Promise<string>;
}

/**
 * The FIDO metadata the service uses: the last BLOB that verified, from MDS_BLOB_FILE and, when
 * MDS_URL is set, from downloads after the BLOB's nextUpdate. A BLOB that fails verification, or
 * is not newer than the one in use (by its serial number), is refused with a log line and the one
 * in use stays. No source configured is a normal state: `catalog()` is then undefined.
 */
export class AuthenticatorMetadata {
  private catalogInUse: MetadataCatalog | undefined;
  private fileStamp: string | undefined;
  private readonly roots: string[];
  /** Loads and refreshes run one at a time. */
  private queue: Promise<void> = Promise.resolve();
  /** The first read of the file: at the first refresh (at start, when serving) or the first use. */
  private firstRead: Promise<void> | undefined;
  private readonly downloads = new AbortController();
  private warnedStale: number | undefined;

  private readonly sources: MetadataSources;
  private readonly logger: Logger;
  private readonly now: () => number;
  private readonly download: (url: string, signal: AbortSignal) => Promise<string>;

  constructor(deps: AuthenticatorMetadataDeps) {
    this.sources = deps.sources;
    this.logger = deps.logger;
    this.now = deps.now ?? Date.now;
    this.download = deps.download ?? downloadMetadataBlob;
    this.roots = [...FIDO_METADATA_ROOTS, ...this.sources.trustedRoots];
  }

  get configured(): boolean {
    return this.sources.blobFile !== undefined || this.sources.url !== undefined;
  }

  /** The catalog in use, once the BLOB on disk (if any) has been read; undefined without metadata. */
  async catalog(): Promise<MetadataCatalog | undefined> {
    await this.readOnce();
    return this.catalogInUse;
  }

  /** Nothing is read before it is needed: a CLI command that never asks reads no BLOB. */
  private readOnce(): Promise<void> {
    this.firstRead ??= this.enqueue(() => this.readFile());
    return this.firstRead;
  }

  /**
   * Reads the file again if it changed, and downloads from MDS_URL when there is no BLOB yet or
   * the one in use is past its nextUpdate. Never throws: trouble is logged.
   */
  refresh(): Promise<void> {
    void this.readOnce();
    return this.enqueue(async () => {
      await this.readFile();
      if (this.sources.url !== undefined && this.due()) await this.fetchFromUrl(this.sources.url);
      this.warnIfStale();
    });
  }

  /** Abandons a download under way. */
  close(): Promise<void> {
    this.downloads.abort();
    return this.queue;
  }

  private enqueue(work: () => Promise<void>): Promise<void> {
    this.queue = this.queue.then(work).catch((error: unknown) => this.logger.error({ err: { name: (error as Error).name, message: (error as Error).message } }, 'metadata refresh failed'));
    return this.queue;
  }

  /** Whether the BLOB in use has reached its nextUpdate (or there is none). */
  private due(): boolean {
    const nextUpdate = this.catalogInUse && utcDayOfDate(this.catalogInUse.blob.nextUpdate);
    return nextUpdate === undefined || utcDayOf(this.now()) >= nextUpdate;
  }

  private async readFile(): Promise<void> {
    const path = this.sources.blobFile;
    if (path === undefined) return;
    let stamp: string;
    try {
      const info = await stat(path);
      stamp = stampOf(info);
      if (stamp === this.fileStamp) return;
      if (info.size > MAX_BLOB_BYTES) throw Object.assign(new Error(`larger than ${MAX_BLOB_BYTES} bytes`), { code: 'EFBIG' });
    } catch (error) {
      // With MDS_URL, no file yet only means nothing was downloaded yet.
      if ((error as NodeJS.ErrnoException).code === 'ENOENT' && this.sources.url !== undefined) return;
      if (this.fileStamp !== 'unreadable') this.logger.error({ code: (error as NodeJS.ErrnoException).code }, 'MDS_BLOB_FILE cannot be read: no metadata from it');
      this.fileStamp = 'unreadable';
      return;
    }
    this.fileStamp = stamp;
    const handle = await open(path, 'r');
    let text: string;
    try {
      text = await handle.readFile('utf8');
    } finally {
      await handle.close();
    }
    await this.adopt(text, 'MDS_BLOB_FILE');
  }

  private async fetchFromUrl(url: string): Promise<void> {
    let text: string;
    try {
      text = await this.download(url, this.downloads.signal);
    } catch (error) {
      this.logger.warn({ source: 'MDS_URL', url: withoutQuery(url), reason: (error as Error).message }, 'metadata BLOB download failed: the BLOB in use stays');
      return;
    }
    const blob = await this.adopt(text, 'MDS_URL');
    if (blob && this.sources.blobFile !== undefined) await this.keepCopy(this.sources.blobFile, text);
  }

  /** Verifies `text` and puts it in use if it is newer than the BLOB in use; the BLOB if it was. */
  private async adopt(text: string, source: Source): Promise<MetadataBlob | undefined> {
    let blob: MetadataBlob;
    try {
      blob = await verifyMetadataBlob(text.trim(), this.roots);
    } catch (error) {
      this.logger.warn({ source, reason: (error as Error).message }, 'metadata BLOB refused: it failed verification; the BLOB in use stays');
      return undefined;
    }
    const inUse = this.catalogInUse?.blob.no;
    if (inUse !== undefined && blob.no <= inUse) {
      if (blob.no < inUse) this.logger.warn({ source, no: blob.no, inUse }, 'metadata BLOB refused: it is older than the BLOB in use');
      return undefined;
    }
    this.catalogInUse = new MetadataCatalog(blob);
    this.logger.info({ source, no: blob.no, nextUpdate: blob.nextUpdate, entries: blob.entries.length }, 'metadata BLOB loaded');
    return blob;
  }

  /** Writes a verified download beside the file and renames it over, so a reader never sees half a BLOB. */
  private async keepCopy(path: string, text: string): Promise<void> {
    const temporary = `${path}.${randomBytes(4).toString('hex')}.tmp`;
    try {
      await mkdir(dirname(path), { recursive: true });
      await writeFile(temporary, text);
      await rename(temporary, path);
      this.fileStamp = stampOf(await stat(path));
    } catch (error) {
      await unlink(temporary).catch(() => undefined);
      this.logger.warn({ code: (error as NodeJS.ErrnoException).code }, 'the downloaded metadata BLOB could not be kept in MDS_BLOB_FILE');
    }
  }

  private warnIfStale(): void {
    const blob = this.catalogInUse?.blob;
    if (!blob || this.sources.url !== undefined || this.warnedStale === blob.no || !this.due()) return;
    this.warnedStale = blob.no;
    this.logger.warn({ no: blob.no, nextUpdate: blob.nextUpdate }, 'the metadata BLOB in MDS_BLOB_FILE is past its nextUpdate: put a newer one there');
  }
}

/** A URL for the log, without a query string that might carry a token. */
function withoutQuery(url: string): string {
  const parsed = new URL(url);
  return `${parsed.origin}${parsed.pathname}`;
}
