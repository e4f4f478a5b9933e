/** base64url (unpadded) of any bytes or UTF-8 text. */
export function toBase64Url(value: Uint8Array | string): string {
  return Buffer.from(value).toString('base64url');
}

/** Standard padded base64 from base64url: the form .NET's byte[] fields require. */
export function base64UrlToBase64(value: string): string {
  return Buffer.from(value, 'base64url').toString('base64');
}

/** Accepts base64url or standard base64 (padded or not) and returns canonical unpadded base64url. */
export function normaliseCredentialId(value: string): string | undefined {
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(value)) return undefined;
  const unpadded = value.replace(/=+$/, '');
  // A length of 4n+1 characters encodes no whole byte: Node would drop the last one silently.
  if (unpadded.length % 4 === 1) return undefined;
  const bytes = Buffer.from(unpadded.replace(/\+/g, '-').replace(/\//g, '_'), 'base64url');
  return bytes.length === 0 ? undefined : bytes.toString('base64url');
}

/** The WebAuthn user handle is the UTF-8 bytes of the customer's userId. */
export function userHandleOf(userId: string): string {
  return toBase64Url(userId);
}
