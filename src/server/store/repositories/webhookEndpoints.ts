import type { Db } from '..';
import type { SqlDriver } from '../sql/driver';

/** What a `WebhookEndpointRepository` is built from. */
export interface WebhookEndpointRepositoryDeps {
  db: Db;
  /** The create that keeps the endpoint limit is a unit of the SQL layer that locks the app's row first. */
  sql: SqlDriver;
}

/** An endpoint with every column, secrets sealed as stored (the worker's read). */
export type StoredWebhookEndpoint = NonNullable<Awaited<ReturnType<Db['webhookEndpoint']['findFirst']>>>;

/** The columns an endpoint is answered with: never its secrets. */
const VIEW_FIELDS = { id: true, url: true, eventTypes: true, description: true, enabled: true, disabledReason: true, previousSecretExpiresAt: true, createdAt: true } as const;

/** An endpoint as the APIs see it (`eventTypes` as stored, a JSON array). */
export interface WebhookEndpointRow {
  id: string;
  url: string;
  eventTypes: string;
  description: string;
  enabled: boolean;
  disabledReason: string | null;
  previousSecretExpiresAt: Date | null;
  createdAt: Date;
}

/** A new endpoint, its secret already sealed. */
export interface NewWebhookEndpoint {
  id: string;
  url: string;
  eventTypes: string;
  description: string;
  enabled: boolean;
  secret: string;
  createdAt: Date;
}

/** What changes in an endpoint; enabling it again clears why it was disabled. */
export interface WebhookEndpointChange {
  url?: string;
  eventTypes?: string;
  description?: string;
  enabled?: boolean;
}

/** An endpoint's sealed secrets as stored. */
export interface StoredWebhookSecrets {
  secret: string;
  previousSecret: string | null;
  previousSecretExpiresAt: Date | null;
}

/**
 * An app's webhook endpoints, all through Prisma (cold CRUD: the private and management APIs, the
 * CLI, and the worker's read of the endpoints it sends to). Nothing here is reported by a webhook.
 */
export class WebhookEndpointRepository {
  private readonly db: Db;
  private readonly sql: SqlDriver;

  constructor(deps: WebhookEndpointRepositoryDeps) {
    this.db = deps.db;
    this.sql = deps.sql;
  }

  /** Whether the app has this endpoint: one primary-key read. */
  async exists(appId: string, id: string): Promise<boolean> {
    return (await this.db.webhookEndpoint.findFirst({ where: { tenant: appId, id }, select: { id: true } })) !== null;
  }

  /** The app's endpoints, oldest first: one read by the tenant index. */
  list(appId: string): Promise<WebhookEndpointRow[]> {
    return this.db.webhookEndpoint.findMany({ where: { tenant: appId }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }], select: VIEW_FIELDS });
  }

  /** One endpoint of the app; undefined when it has none with this id. */
  async find(appId: string, id: string): Promise<WebhookEndpointRow | undefined> {
    return (await this.db.webhookEndpoint.findFirst({ where: { tenant: appId, id }, select: VIEW_FIELDS })) ?? undefined;
  }

  /**
   * Adds an endpoint unless the app has `max` already: counted in the statement that adds it, in a
   * unit that holds the app's row first (`lockApp`), so creates for one app take turns and
   * concurrent ones cannot all find room. 'limit_reached' writes nothing.
   */
  async create(appId: string, endpoint: NewWebhookEndpoint, max: number): Promise<WebhookEndpointRow | 'limit_reached'> {
    const { codec } = this.sql;
    const params = { ...endpoint, tenant: appId, enabled: codec.bool(endpoint.enabled), createdAt: codec.time(endpoint.createdAt.getTime()), max };
    const outcome = await this.sql.unit([
      { statement: 'lockApp', params: { tenant: appId } },
      { statement: 'insertWebhookEndpointWithin', params, as: 'endpoint', orFail: 'limit_reached' },
    ]);
    const row = outcome.ok ? outcome.kept.endpoint : undefined;
    if (!row) return 'limit_reached';
    return {
      id: row.id as string,
      url: row.url as string,
      eventTypes: row.eventTypes as string,
      description: row.description as string,
      enabled: codec.boolOf(row.enabled),
      disabledReason: (row.disabledReason as string | null) ?? null,
      previousSecretExpiresAt: row.previousSecretExpiresAt === null || row.previousSecretExpiresAt === undefined ? null : new Date(codec.timeOf(row.previousSecretExpiresAt)),
      createdAt: new Date(codec.timeOf(row.createdAt)),
    };
  }

  /** Changes an endpoint: one statement; false when the app has none with this id. */
  async update(appId: string, id: string, change: WebhookEndpointChange): Promise<boolean> {
    const data = {
      ...(change.url === undefined ? {} : { url: change.url }),
      ...(change.eventTypes === undefined ? {} : { eventTypes: change.eventTypes }),
      ...(change.description === undefined ? {} : { description: change.description }),
      // Enabled again by the app: whatever disabled it is behind it.
      ...(change.enabled === undefined ? {} : { enabled: change.enabled, disabledReason: null }),
    };
    const { count } = await this.db.webhookEndpoint.updateMany({ where: { tenant: appId, id }, data });
    return count > 0;
  }

  /** The endpoint and every delivery to it, in one transaction; false when the app has none with this id. */
  async delete(appId: string, id: string): Promise<boolean> {
    const deleted = await this.db.$transaction(async (tx) => {
      const { count } = await tx.webhookEndpoint.deleteMany({ where: { tenant: appId, id } });
      if (count > 0) await tx.webhookDelivery.deleteMany({ where: { tenant: appId, endpointId: id } });
      return count;
    });
    return deleted > 0;
  }

  /**
   * A new sealed secret; the stored one becomes the previous, signing until `previousSecretExpiresAt`.
   * A read and an update conditional on the secret read, in one transaction, so two rotations at
   * once cannot both keep the same previous one. False when the app has no such endpoint (or a
   * rotation won the race).
   */
  rotateSecret(appId: string, id: string, sealedSecret: string, previousSecretExpiresAt: Date): Promise<boolean> {
    return this.db.$transaction(async (tx) => {
      const current = await tx.webhookEndpoint.findFirst({ where: { tenant: appId, id }, select: { secret: true } });
      if (!current) return false;
      const { count } = await tx.webhookEndpoint.updateMany({
        where: { tenant: appId, id, secret: current.secret },
        data: { secret: sealedSecret, previousSecret: current.secret, previousSecretExpiresAt },
      });
      return count === 1;
    });
  }

  /** Every endpoint of every app, by (app, id): one read (the CLI's reseal). */
  everyEndpoint(): Promise<{ tenant: string; id: string }[]> {
    return this.db.webhookEndpoint.findMany({ select: { tenant: true, id: true }, orderBy: [{ tenant: 'asc' }, { id: 'asc' }] });
  }

  /** The endpoint's sealed secrets; undefined when it is gone. One primary-key read. */
  async secretsOf(appId: string, id: string): Promise<StoredWebhookSecrets | undefined> {
    return (await this.db.webhookEndpoint.findFirst({ where: { tenant: appId, id }, select: { secret: true, previousSecret: true, previousSecretExpiresAt: true } })) ?? undefined;
  }

  /**
   * Replaces the endpoint's sealed secrets if they are still `was` (one conditional update): false
   * when a rotation or a deletion came in between. A previous secret of null drops its expiry too.
   */
  async replaceSecrets(appId: string, id: string, was: Pick<StoredWebhookSecrets, 'secret' | 'previousSecret'>, secret: string, previousSecret: string | null): Promise<boolean> {
    const { count } = await this.db.webhookEndpoint.updateMany({
      where: { tenant: appId, id, secret: was.secret, previousSecret: was.previousSecret },
      data: { secret, previousSecret, ...(previousSecret === null ? { previousSecretExpiresAt: null } : {}) },
    });
    return count === 1;
  }

  /** The endpoints with these ids, every column (the worker's read for the runs it claimed): one read. */
  withIds(ids: string[]): Promise<StoredWebhookEndpoint[]> {
    return this.db.webhookEndpoint.findMany({ where: { id: { in: ids } } });
  }
}
