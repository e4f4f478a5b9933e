import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { APP_ID_PATTERN } from '../../../shared/apiKeys';
import { ApiError } from '../../core/apiError';
import type { WebhookDestinationPolicy } from '../../core/config';
import { ciObject, looseBoolean } from '../../core/validation';
import { MAX_WEBHOOK_ENDPOINTS, WEBHOOK_EVENT_TYPES } from '../../core/webhookEventTypes';
import type { AppRepository, WebhookEndpointRepository, WebhookEndpointRow } from '../../store/repositories';
import type { TokenKeyEncryption } from '../tokens/tokenKeyWrapping';
import type { EventLog } from '../events/eventLog';
import { UNKNOWN_USER } from '../events/eventTypes';
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

/** An endpoint as the APIs answer it: never its secret. */
export function webhookView(row: WebhookEndpointRow, now: number) {
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

/** What a `WebhookEndpointService` is built from. */
export interface WebhookEndpointServiceDeps {
  endpoints: WebhookEndpointRepository;
  /** Whether an app named by the management API or the CLI exists. */
  apps: AppRepository;
  policy: WebhookDestinationPolicy;
  encryption: TokenKeyEncryption;
  /** An app's endpoints changed: its cached subscriptions go, here and on the other replicas. */
  changed: (appId: string) => void;
  events: EventLog;
  now?: () => number;
  lookup?: AddressLookup;
}

/**
 * An app's webhook endpoints (private API, management API, CLI): at most 10, each URL checked
 * against the destination rules when it is saved, the secret shown once (at creation and at each
 * rotation) and stored sealed. Every change drops the app's cached subscriptions everywhere, and
 * is recorded in the app's event log with `by`, who made it (default: the reference's `Unknown User`).
 */
export class WebhookEndpointService {
  private readonly endpoints: WebhookEndpointRepository;
  private readonly apps: AppRepository;
  private readonly policy: WebhookDestinationPolicy;
  private readonly encryption: TokenKeyEncryption;
  private readonly changed: (appId: string) => void;
  private readonly events: EventLog;
  private readonly now: () => number;
  private readonly lookup?: AddressLookup;

  constructor(deps: WebhookEndpointServiceDeps) {
    this.endpoints = deps.endpoints;
    this.apps = deps.apps;
    this.policy = deps.policy;
    this.encryption = deps.encryption;
    this.changed = deps.changed;
    this.events = deps.events;
    this.now = deps.now ?? Date.now;
    this.lookup = deps.lookup;
  }

  /** For the management API and the CLI, which name the app: 404 app_not_found when there is none. */
  async assertApp(appId: string): Promise<void> {
    if (!APP_ID_PATTERN.test(appId) || !(await this.apps.exists(appId))) throw new ApiError('app_not_found', { detail: `There is no app '${appId}'.` });
  }

  async list(appId: string): Promise<WebhookView[]> {
    const rows = await this.endpoints.list(appId);
    return rows.map((row) => webhookView(row, this.now()));
  }

  async create(appId: string, input: z.output<typeof createWebhookSchema>, by?: string): Promise<WebhookView & { secret: string }> {
    await this.assertDestination(input.url);
    const id = `ep_${randomBytes(12).toString('hex')}`;
    const secret = newWebhookSecret();
    const row = await this.endpoints.create(
      appId,
      {
        id,
        url: input.url,
        eventTypes: JSON.stringify(input.eventTypes),
        description: input.description ?? '',
        enabled: input.enabled ?? true,
        secret: sealWebhookSecret(secret, this.encryption, appId, id),
        createdAt: new Date(this.now()),
      },
      MAX_WEBHOOK_ENDPOINTS,
    );
    if (row === 'limit_reached') {
      throw new ApiError('webhook_limit_reached', { detail: `An app may have at most ${MAX_WEBHOOK_ENDPOINTS} webhook endpoints; delete one first.` });
    }
    this.changed(appId);
    this.events.record(appId, { type: 'AdminWebhookCreated', message: `The webhook endpoint ${id} was created.`, subject: id, performedBy: by ?? UNKNOWN_USER });
    return { ...webhookView(row, this.now()), secret };
  }

  async update(appId: string, id: string, input: z.output<typeof adminUpdateWebhookSchema>, by?: string): Promise<WebhookView> {
    if (!ENDPOINT_ID.test(id)) throw notFound();
    if (input.url !== undefined) await this.assertDestination(input.url);
    const eventTypes = input.eventTypes === undefined ? undefined : JSON.stringify(input.eventTypes);
    if (!(await this.endpoints.update(appId, id, { url: input.url, eventTypes, description: input.description, enabled: input.enabled }))) throw notFound();
    this.changed(appId);
    const fields = Object.keys(input).filter((field) => input[field as keyof typeof input] !== undefined);
    this.events.record(appId, { type: 'AdminWebhookUpdated', message: `The webhook endpoint ${id} was changed: ${fields.join(', ') || 'nothing'}.`, subject: id, performedBy: by ?? UNKNOWN_USER });
    return webhookView((await this.endpoints.find(appId, id)) ?? throwNotFound(), this.now());
  }

  /** The endpoint and every delivery to it. */
  async delete(appId: string, id: string, by?: string): Promise<void> {
    if (!ENDPOINT_ID.test(id)) throw notFound();
    if (!(await this.endpoints.delete(appId, id))) throw notFound();
    this.changed(appId);
    this.events.record(appId, { type: 'AdminWebhookDeleted', message: `The webhook endpoint ${id} was deleted.`, subject: id, performedBy: by ?? UNKNOWN_USER });
  }

  /** A new secret, shown once; the one before keeps signing beside it for 24 hours. */
  async rotateSecret(appId: string, id: string, by?: string): Promise<{ id: string; secret: string; previousSecretExpiresAt: string }> {
    if (!ENDPOINT_ID.test(id)) throw notFound();
    const secret = newWebhookSecret();
    const previousSecretExpiresAt = new Date(this.now() + PREVIOUS_SECRET_LIFETIME_MS);
    // Conditional on the secret it replaces, so two rotations at once cannot both keep the same previous one.
    const rotated = await this.endpoints.rotateSecret(appId, id, sealWebhookSecret(secret, this.encryption, appId, id), previousSecretExpiresAt);
    if (!rotated) throw notFound();
    this.changed(appId);
    this.events.record(appId, {
      type: 'AdminWebhookSecretRotated',
      message: `The secret of the webhook endpoint ${id} was rotated; the one before signs beside it until ${previousSecretExpiresAt.toISOString()}.`,
      subject: id,
      performedBy: by ?? UNKNOWN_USER,
    });
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
