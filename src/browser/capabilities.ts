/**
 * What the browser says it can do (`PublicKeyCredential.getClientCapabilities()`, WebAuthn Level
 * 3): `conditionalCreate`, `immediateGet`, `conditionalGet`, the Signal API, extensions... An
 * empty record where the browser lacks the call or it fails: then nothing is assumed.
 */
export async function clientCapabilities(): Promise<Record<string, boolean>> {
  const api = (globalThis as { PublicKeyCredential?: { getClientCapabilities?(): Promise<Record<string, boolean>> } }).PublicKeyCredential;
  try {
    return { ...((await api?.getClientCapabilities?.()) ?? {}) };
  } catch {
    return {};
  }
}
