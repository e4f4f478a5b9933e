import type { AppFeatures, AppsService } from './apps';

/**
 * The features of an app, cached briefly because the ceremony hot path reads them on every
 * request (allowed origins, plan). Changes made in this process clear the cache at once; other
 * replicas see them within `ttlMs`.
 */
export class AppSettingsCache {
  private readonly cache = new Map<string, { features: AppFeatures; expires: number }>();

  constructor(
    private readonly apps: AppsService,
    private readonly ttlMs = 5000,
  ) {}

  async get(appId: string): Promise<AppFeatures> {
    const now = Date.now();
    const hit = this.cache.get(appId);
    if (hit && hit.expires > now) return hit.features;
    const features = await this.apps.getFeatures(appId);
    if (this.cache.size > 10_000) this.cache.clear();
    this.cache.set(appId, { features, expires: now + this.ttlMs });
    return features;
  }

  /** The cached features if they are fresh, without reading anything. */
  peek(appId: string): AppFeatures | undefined {
    const hit = this.cache.get(appId);
    return hit && hit.expires > Date.now() ? hit.features : undefined;
  }

  invalidate(): void {
    this.cache.clear();
  }
}

/** Direct and indirect attestation need the enterprise plan (or the reference's allowAttestation flag). */
export function attestationAllowed(features: AppFeatures): boolean {
  return features.plan === 'enterprise' || features.allowAttestation;
}
