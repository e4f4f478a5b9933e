import { z } from 'zod';
import { ApiError } from '../../core/apiError';
import { ciObject, looseBoolean } from '../../core/validation';
import type { AuthenticatorListRepository } from '../../store/repositories';
import { attestationAllowed, type AppFeaturesCache } from '../apps/appFeaturesCache';
import { UNKNOWN_USER } from '../events/eventTypes';
import type { EventLog } from '../events/eventLog';
import type { AuthenticatorMetadata } from '../metadata/authenticatorMetadata';

/** AAGUIDs one request may name: more than the FIDO metadata describes today. */
const MAX_AAGUIDS = 500;
const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** `true`/`false` in any case, as a query string carries it. */
const queryBoolean = () => z.preprocess((v) => (typeof v === 'string' ? v.toLowerCase() : v), looseBoolean());

const aaGuidList = z
  .array(z.string().regex(GUID, 'must hold AAGUIDs (xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx)'))
  .min(1, 'must hold at least one AAGUID')
  .max(MAX_AAGUIDS, `must hold at most ${MAX_AAGUIDS} AAGUIDs`)
  .transform((aaGuids) => [...new Set(aaGuids.map((aaGuid) => aaGuid.toLowerCase()))]);

/** `GET /authenticators/list?isAllowed=`. */
export const listAuthenticatorsQuerySchema = ciObject({ isAllowed: queryBoolean() });
/** `POST /authenticators/add`. */
export const addAuthenticatorsSchema = ciObject({ aaGuids: aaGuidList, isAllowed: looseBoolean() });
/** `POST /authenticators/remove`. */
export const removeAuthenticatorsSchema = ciObject({ aaGuids: aaGuidList });

/** How an app's lists treat one AAGUID, for registration. */
export interface ListVerdict {
  /** true: on the allow list; false: on the block list; undefined: on neither. */
  listed: boolean | undefined;
  /** Whether the app has an allow list at all (a non-empty one). */
  allowlistExists: boolean;
}

/** What an `AuthenticatorLists` is built from. */
export interface AuthenticatorListsDeps {
  lists: AuthenticatorListRepository;
  features: AppFeaturesCache;
  metadata: AuthenticatorMetadata;
  events: EventLog;
  now?: () => number;
}

/**
 * An app's authenticator allow list and block list (`/authenticators/*`). Only apps that may use
 * attestation (the enterprise plan or the allowAttestation feature) have them; only AAGUIDs the FIDO
 * metadata knows may be added.
 */
export class AuthenticatorLists {
  private readonly lists: AuthenticatorListRepository;
  private readonly features: AppFeaturesCache;
  private readonly metadata: AuthenticatorMetadata;
  private readonly events: EventLog;
  private readonly now: () => number;

  constructor(deps: AuthenticatorListsDeps) {
    this.lists = deps.lists;
    this.features = deps.features;
    this.metadata = deps.metadata;
    this.events = deps.events;
    this.now = deps.now ?? Date.now;
  }

  /** Whether the app's plan has the lists (they take effect only then); 403 otherwise. */
  private async assertOnPlan(appId: string): Promise<void> {
    if (attestationAllowed(await this.features.get(appId))) return;
    throw new ApiError('attestation_not_supported_on_plan', {
      status: 403,
      detail: 'Authenticator allow and block lists need attestation: the enterprise plan, or the allowAttestation feature.',
    });
  }

  async list(appId: string, isAllowed: boolean): Promise<{ aaGuid: string; createdAt: string }[]> {
    await this.assertOnPlan(appId);
    const rows = await this.lists.list(appId, isAllowed);
    return rows.map((row) => ({ aaGuid: row.aaGuid, createdAt: row.createdAt.toISOString() }));
  }

  /** Adds the AAGUIDs to one list, moving any already on the other. All or nothing. `by`: who, for the event log (default: the reference's `Unknown User`). */
  async add(appId: string, input: z.output<typeof addAuthenticatorsSchema>, by?: string): Promise<void> {
    await this.assertOnPlan(appId);
    const catalog = await this.metadata.catalog();
    const unknown = input.aaGuids.filter((aaGuid) => !catalog?.entryOf(aaGuid));
    if (unknown.length > 0) {
      throw new ApiError('unknown_authenticator', {
        detail: catalog ? `Not in the FIDO metadata: ${unknown.join(', ')}.` : 'No FIDO metadata is loaded (MDS_BLOB_FILE or MDS_URL), so no authenticator can be added.',
        extras: { aaGuids: unknown },
      });
    }
    const change = input.isAllowed ? 'allowed' : 'blocked';
    await this.lists.put(appId, input.aaGuids, input.isAllowed, this.now(), { type: 'authenticators.updated', data: { change, aaGuids: input.aaGuids } });
    const list = input.isAllowed ? 'allow list' : 'block list';
    for (const aaGuid of input.aaGuids) {
      this.events.record(appId, {
        type: input.isAllowed ? 'ApiAuthenticatorsAllowlisted' : 'ApiAuthenticatorsBlacklisted',
        message: `The authenticator ${aaGuid} was put on the ${list}.`,
        subject: aaGuid,
        performedBy: by ?? UNKNOWN_USER,
      });
    }
  }

  /** Takes the AAGUIDs off whichever list holds them; unknown ones change nothing. `by`: who, for the event log (default: the reference's `Unknown User`). */
  async remove(appId: string, input: z.output<typeof removeAuthenticatorsSchema>, by?: string): Promise<void> {
    await this.assertOnPlan(appId);
    const listed = await this.lists.listedAmong(appId, input.aaGuids);
    if (listed.length === 0) return;
    await this.lists.remove(appId, input.aaGuids, { type: 'authenticators.updated', data: { change: 'removed', aaGuids: listed } });
    for (const aaGuid of listed) {
      this.events.record(appId, { type: 'ApiAuthenticatorsDelisted', message: `The authenticator ${aaGuid} was taken off its list.`, subject: aaGuid, performedBy: by ?? UNKNOWN_USER });
    }
  }

  /** Two index lookups, whatever the size of the lists. */
  async verdictFor(appId: string, aaguid: string): Promise<ListVerdict> {
    return this.lists.verdict(appId, aaguid.toLowerCase());
  }
}
