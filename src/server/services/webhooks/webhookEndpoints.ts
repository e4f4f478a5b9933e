import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { APP_ID_PATTERN } from '../../../shared/apiKeys';
import { ApiError } from '../../core/apiError';
import type { WebhookDestinationPolicy } from '../../core/config';
import { ciObject, looseBoolean } from '../../core/validation';
import { MAX_WEBHOOK_ENDPOINTS, WEBHOOK_EVENT_TYPES } from '../../core/webhookEventTypes';
import type { Db } from '../../store';
import { lockAppRow } from '../../store/lockAppRow';
import type { Provider } from '../../store/migrate';
import type { TokenKeyEncryption } from '../tokens/tokenKeyWrapping';
import { newWebhookSecret } from './newWebhookSecret';
import { resolveWebhookDestination, type AddressLookup } from './resolveWebhookDestination';
import { sealWebhookSecret } from './webhookSecretSealing';

/** What an endpoint may subscribe to: every event but the test event, which is sent on request. */
export const SUBSCRIBABLE_EVENT_TYPES = WEBHOOK_EVENT_TYPES.filter((t) => t !== 'webhook.test') as [string, ...string[]];

/** How long the secret before a rotation still signs (beside the new one). */
export const PREVIOUS_SECRET_LIFETIME_MS = 86_400_000;
const MAX_URL_LENGTH = 2048;
const MAX_DESCRIPTION_LENGTH = 500;

const url = z.string({ message: 'must be a URL' }).min(1, 'is required').max(MAX_URL_LENGTH, `must be at most ${MAX_URL_LENGTH} characters`);
const eventTypes = z
  .array(z.enum(SUBSCRIBABLE_EVENT_TYPES, { message: `must each be one of: ${SUBSCRIBABLE_EVENT_TYPES.join(', ')}` }), { message: 'must be an array of event types' })
  .min(1, 'must name at least one event type')
  .max(SUBSCRIBABLE_EVENT_TYPES.length * 2, 'names too many event types')
  .transform((types) => [...new Set(types)]);
const description = z.string({ message: 'must be a string' }).max(MAX_DESCRIPTION_LENGTH, `must be at most ${MAX_DESCRIPTION_LENGTH} characters`);
const webhookId = z.string({ message: 'must be a webhook id' }).min(1, 'is required').max(64, 'must be at most 64 characters');

export const createWebhookSchema = ciObject({ url, eventTypes, description: description.optional(), enabled: looseBoolean().optional() });
export const updateWebhookSchema = ciObject({ id: webhookId, url: url.optional(), eventTypes: eventTypes.optional(), description: description.optional(), enabled: looseBoolean().optional() });
/** The endpoint a call names (delete, rotate-secret, test, deliveries). */
export const webhookIdSchema = ciObject({ id: webhookId });
/** The management API names the endpoint in its path; its body holds the rest of an update. */
export const adminUpdateWebhookSchema = ciObject({ url: url.optional(), eventTypes: eventTypes.optional(), description: description.optional(), enabled: looseBoolean().optional() });

interface EndpointRow {
  id: string;
  url: string;
  eventTypes: string;
  description: string;
  enabled: boolean;
  disabledReason: string | null;
  previousSecretExpiresAt: Date | null;
  createdAt: Date;
}

/** An endpoint as the APIs answer it: never its secret. */
export function webhookView(row: EndpointRow, now: number) {
  return {
    id: row.id,
    url: row.url,
    eventTypes: JSON.parse(row.eventTypes) as string[],
    description: row.description,
    enabled: row.enabled,
    disabledReason: row.disabledReason,
    createdAt: row.createdAt.toISOString(),
    /** Until when the secret before the last rotation still signs beside the current one; null when none does. */
    previousSecretExpiresAt: row.previousSecretExpiresAt && row.previousSecretExpiresAt.getTime() > now ? row.previousSecretExpiresAt.toISOString() : null,
  };
}
export type WebhookView = ReturnType<typeof webhookView>;

const notFound = () => new ApiError('webhook_not_found');
/** What `create` makes; anything else (a path id of any text) is no endpoint, without asking the database. */
const ENDPOINT_ID = /^ep_[0-9a-f]{24}$/;
const VIEW_FIELDS = { id: true, url: true, eventTypes: true, description: true, enabled: true, disabledReason: true, previousSecretExpiresAt: true, createdAt: true } as const;

/** What a `WebhookEndpointService` is built from. */
export interface WebhookEndpointServiceDeps {
  db: Db;
  /** Which database: the count that keeps the limit locks the app's row first on PostgreSQL. */
  provider: Provider;
  policy: WebhookDestinationPolicy;
  encryption: TokenKeyEncryption;
  /** An app's endpoints changed: its cached subscriptions go, here and on the other replicas. */
  changed: (appId: string) => void;
  now?: () => number;
  lookup?: AddressLookup;
}

/**
 * An app's webhook endpoints (private API, management API, CLI): at most 10, each URL checked
 * against the destination rules when it is saved, the secret shown once (at creation and at each
 * rotation) and stored sealed. Every change drops the app's cached subscriptions everywhere.
 */
export class WebhookEndpointService {
  private readonly db: Db;
  private readonly provider: Provider;
  private readonly policy: WebhookDestinationPolicy;
  private readonly encryption: TokenKeyEncryption;
  private readonly changed: (appId: string) => void;
  private readonly now: () => number;
  private readonly lookup?: AddressLookup;

  constructor(deps: WebhookEndpointServiceDeps) {
    this.db = deps.db;
    this.provider = deps.provider;
    this.policy = deps.policy;
    this.encryption = deps.encryption;
    this.changed = deps.changed;
    this.now = deps.now ?? Date.now;
    this.lookup = deps.lookup;
  }

  /** For the management API and the CLI, which name the app: 404 app_not_found when there is none. */
  async assertApp(appId: string): Promise<void> {
    if (!APP_ID_PATTERN.test(appId) || !(await this.db.app.findUnique({ where: { id: appId }, select: { id: true } }))) throw new ApiError('app_not_found', { detail: `There is no app '${appId}'.` });
  }

  async list(appId: string): Promise<WebhookView[]> {
    const rows = await this.db.webhookEndpoint.findMany({ where: { tenant: appId }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }], select: VIEW_FIELDS });
    return rows.map((row) => webhookView(row, this.now()));
  }

  async create(appId: string, input: z.output<typeof createWebhookSchema>): Promise<WebhookView & { secret: string }> {
    await this.assertDestination(input.url);
    const id = `ep_${randomBytes(12).toString('hex')}`;
    const secret = newWebhookSecret();
    const row = await this.db.$transaction(async (tx) => {
      // Counted in the transaction that adds one, behind a lock on the app's row: creates for one
      // app take turns, so concurrent ones cannot all find room.
      await lockAppRow(tx, this.provider, appId);
      if ((await tx.webhookEndpoint.count({ where: { tenant: appId } })) >= MAX_WEBHOOK_ENDPOINTS) {
        throw new ApiError('webhook_limit_reached', { detail: `An app may have at most ${MAX_WEBHOOK_ENDPOINTS} webhook endpoints; delete one first.` });
      }
      return tx.webhookEndpoint.create({
        data: {
          id,
          tenant: appId,
          url: input.url,
          eventTypes: JSON.stringify(input.eventTypes),
          description: input.description ?? '',
          enabled: input.enabled ?? true,
          secret: sealWebhookSecret(secret, this.encryption, appId, id),
          createdAt: new Date(this.now()),
        },
        select: VIEW_FIELDS,
      });
    });
    this.changed(appId);
    return { ...webhookView(row, this.now()), secret };
  }

  async update(appId: string, id: string, input: z.output<typeof adminUpdateWebhookSchema>): Promise<WebhookView> {
    if (!ENDPOINT_ID.test(id)) throw notFound();
    if (input.url !== undefined) await this.assertDestination(input.url);
    const data = {
      ...(input.url === undefined ? {} : { url: input.url }),
      ...(input.eventTypes === undefined ? {} : { eventTypes: JSON.stringify(input.eventTypes) }),
      ...(input.description === undefined ? {} : { description: input.description }),
      // Enabled again by the app: whatever disabled it is behind it.
      ...(input.enabled === undefined ? {} : { enabled: input.enabled, disabledReason: null }),
    };
    const { count } = await this.db.webhookEndpoint.updateMany({ where: { tenant: appId, id }, data });
    if (count === 0) throw notFound();
    this.changed(appId);
    return webhookView((await this.db.webhookEndpoint.findFirst({ where: { tenant: appId, id }, select: VIEW_FIELDS })) ?? throwNotFound(), this.now());
  }

  /** The endpoint and every delivery to it. */
  async delete(appId: string, id: string): Promise<void> {
    if (!ENDPOINT_ID.test(id)) throw notFound();
    const deleted = await this.db.$transaction(async (tx) => {
      const { count } = await tx.webhookEndpoint.deleteMany({ where: { tenant: appId, id } });
      if (count > 0) await tx.webhookDelivery.deleteMany({ where: { tenant: appId, endpointId: id } });
      return count;
    });
    if (deleted === 0) throw notFound();
    this.changed(appId);
  }

  /** A new secret, shown once; the one before keeps signing beside it for 24 hours. */
  async rotateSecret(appId: string, id: string): Promise<{ id: string; secret: string; previousSecretExpiresAt: string }> {
    if (!ENDPOINT_ID.test(id)) throw notFound();
    const secret = newWebhookSecret();
    const previousSecretExpiresAt = new Date(this.now() + PREVIOUS_SECRET_LIFETIME_MS);
    const rotated = await this.db.$transaction(async (tx) => {
      const current = await tx.webhookEndpoint.findFirst({ where: { tenant: appId, id }, select: { secret: true } });
      if (!current) return false;
      // Conditional on the secret read, so two rotations at once cannot both keep the same previous one.
      const { count } = await tx.webhookEndpoint.updateMany({
        where: { tenant: appId, id, secret: current.secret },
        data: { secret: sealWebhookSecret(secret, this.encryption, appId, id), previousSecret: current.secret, previousSecretExpiresAt },
      });
      return count === 1;
    });
    if (!rotated) throw notFound();
    this.changed(appId);
    return { id, secret, previousSecretExpiresAt: previousSecretExpiresAt.toISOString() };
  }

  private async assertDestination(text: string): Promise<void> {
    const destination = await resolveWebhookDestination(text, this.policy, this.lookup);
    if (!destination.ok) throw new ApiError('webhook_url_not_allowed', { detail: `The URL ${destination.reason}.` });
  }
}

function throwNotFound(): never {
  throw notFound();
}
