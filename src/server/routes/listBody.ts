import type { Services } from '../services';

/**
 * The spec answers lists as bare JSON arrays; the official SDKs read `{values: [...]}`. The app's
 * `sdkCompatibleLists` feature (default: SDK_COMPATIBLE_LISTS) picks the shape for every list.
 */
export async function listBody<T>(services: Services, appId: string, values: T[]): Promise<T[] | { values: T[] }> {
  return (await services.features.get(appId)).sdkCompatibleLists ? { values } : values;
}
