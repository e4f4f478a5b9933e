import type { AppFeatures, FeaturesPatch } from '../../services/apps/apps';

/**
 * The fields of `patch` whose values differ from the app's: what a save of the whole form really
 * changes, so that the event log names only those (and a save without changes changes nothing).
 */
export function changedFeatures(current: AppFeatures, patch: FeaturesPatch): FeaturesPatch {
  const changed: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(patch)) {
    if (value === undefined) continue;
    if (JSON.stringify(value) !== JSON.stringify(current[field as keyof AppFeatures])) changed[field] = value;
  }
  return changed as FeaturesPatch;
}
