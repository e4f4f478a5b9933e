import { TtlCache } from '../../core/ttlCache';
import type { AppFeatures } from './apps';

/**
 * The features of an app, cached briefly because the ceremony hot path reads them on every
 * request (allowed origins, plan). Changes made in this process clear the cache at once; other
 * replicas see them within `ttlMs`.
 */
export class AppFeaturesCache {
  private readonly cache: TtlCache<string, AppFeatures>;

  constructor(
    /** Reads an app's features from the database. */
    private readonly load: (appId: string) => Promise<AppFeatures>,
    ttlMs = 5000,
  ) {
    this.cache = new TtlCache({ ttlMs, maxEntries: 10_000 });
  }

  async get(appId: string): Promise<AppFeatures> {
    const hit = this.cache.get(appId);
    if (hit) return hit;
    const features = await this.load(appId);
    this.cache.set(appId, features);
    return features;
  }

  /** The cached features if they are fresh, without reading anything. */
  peek(appId: string): AppFeatures | undefined {
    return this.cache.get(appId);
  }

  invalidate(): void {
    this.cache.clear();
  }
}

/** Direct and indirect attestation need the enterprise plan (or the reference's allowAttestation flag). */
export function attestationAllowed(features: AppFeatures): boolean {
  return features.plan === 'enterprise' || features.allowAttestation;
}
