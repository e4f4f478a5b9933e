/** The largest BLOB accepted, from a file or a download; the FIDO Alliance's is a few megabytes. */
export const MAX_BLOB_BYTES = 64 * 1024 * 1024;
/** A download that takes longer is abandoned (and retried at the next refresh). */
const DOWNLOAD_TIMEOUT_MS = 60_000;

/** Fetches the BLOB at `url` as text; throws on a non-2xx answer, a body over MAX_BLOB_BYTES, a timeout or `signal`. */
export async function downloadMetadataBlob(url: string, signal: AbortSignal): Promise<string> {
  const response = await fetch(url, { signal: AbortSignal.any([signal, AbortSignal.timeout(DOWNLOAD_TIMEOUT_MS)]), headers: { accept: 'application/jwt, */*' } });
  if (!response.ok || !response.body) {
    await response.body?.cancel();
    throw new Error(`the server answered ${response.status}`);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    if (size > MAX_BLOB_BYTES) throw new Error(`the BLOB is larger than ${MAX_BLOB_BYTES} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
