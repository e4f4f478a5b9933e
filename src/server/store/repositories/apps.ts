import type { Db, NewWebhookDelivery } from '..';
import { isRecordNotFound, isUniqueViolation } from '../../core/storeErrors';
import { scopesColumn, type NewApiKey } from './apiKeys';
import type { SqlDriver } from '../sql/driver';
import { webhookDeliverySteps } from '../sql/units';
import type { WebhookEvent, WebhookOutbox } from './webhookOutbox';

/** The settings an operator (or the app itself) may change, as the services speak of them. */
export interface AppSettings {
  eventLoggingIsEnabled: boolean;
  eventLoggingRetentionPeriod: number;
  magicLinkEmailMonthlyQuota: number;
  maxUsers: number | null;
  allowAttestation: boolean;
  isGenerateSignInTokenEndpointEnabled: boolean;
  isMagicLinksEnabled: boolean;
  plan: string;
  allowedOrigins: string[];
  /** null: follow the SDK_COMPATIBLE_LISTS default. */
  sdkCompatibleLists: boolean | null;
  /** Every key of a frozen app is refused (each keeps its own lock state). */
  frozen: boolean;
}

/** An app's row as the services read it. */
export interface StoredApp extends AppSettings {
  id: string;
  adminEmail: string;
  createdAt: Date;
  /** Pending deletion: when the data goes; null when not pending. */
  deleteAt: Date | null;
  /** Made (or recognised) by the operator console as its own app: see core/reservedAppId.ts. */
  reserved: boolean;
}

/** A new app's row; what is not given takes the column's default. */
export interface NewApp {
  incarnation: string;
  decoyKey: string;
  adminEmail: string;
  plan: string;
  magicLinkEmailMonthlyQuota: number;
  eventLoggingIsEnabled: boolean;
  eventLoggingRetentionPeriod: number;
  maxUsers: number | null;
  allowAttestation: boolean;
  allowedOrigins: string[];
  /** Only the operator console's own app: false when not given. */
  reserved?: boolean;
}

/** What an API key check needs of its app. */
export interface AppKeyState {
  frozen: boolean;
  keysFrozenForDeletion: boolean;
  incarnation: string;
}

/** A pending deletion's times and the nonce of its abort link. */
export interface NewDeletion {
  keysFreezeAt: Date;
  deleteAt: Date;
  nonce: string;
}

/**
 * A deletion just scheduled (and committed, with the deliveries that report it): `confirm` once
 * its warning went out (the worker is woken then), or `undo` it (the schedule and those deliveries
 * go, in one transaction).
 */
export interface ScheduledDeletion {
  confirm(): void;
  undo(): Promise<void>;
}

const NOT_PENDING = { deleteAt: null, keysFreezeAt: null, keysFrozenForDeletion: false, deletionNonce: null } as const;

type AppRow = NonNullable<Awaited<ReturnType<Db['app']['findUnique']>>>;

function storedApp(row: AppRow): StoredApp {
  return {
    id: row.id,
    adminEmail: row.adminEmail,
    createdAt: row.createdAt,
    deleteAt: row.deleteAt,
    reserved: row.reserved,
    frozen: row.frozen,
    eventLoggingIsEnabled: row.eventLoggingIsEnabled,
    eventLoggingRetentionPeriod: row.eventLoggingRetentionPeriod,
    magicLinkEmailMonthlyQuota: row.magicLinkEmailMonthlyQuota,
    maxUsers: row.maxUsers,
    allowAttestation: row.allowAttestation,
    isGenerateSignInTokenEndpointEnabled: row.isGenerateSignInTokenEndpointEnabled,
    isMagicLinksEnabled: row.isMagicLinksEnabled,
    plan: row.plan,
    // Stored as a JSON array in one text column.
    allowedOrigins: JSON.parse(row.allowedOrigins) as string[],
    sdkCompatibleLists: row.sdkCompatibleLists,
  };
}

/** What an `AppRepository` is built from. */
export interface AppRepositoryDeps {
  db: Db;
  sql: SqlDriver;
  outbox: WebhookOutbox;
}

/**
 * The App rows (one per app; every other row of the app hangs off it with a cascading foreign
 * key), through Prisma: creation with its keys, settings, deletion and the deletion schedule. Every
 * statement is by the primary key, except the sweep's read of what is due (a scan of the apps,
 * once a minute). The schedule's changes take the webhook event that reports them and commit its
 * deliveries in their transaction.
 */
export class AppRepository {
  private readonly db: Db;
  private readonly sql: SqlDriver;
  private readonly outbox: WebhookOutbox;

  constructor(deps: AppRepositoryDeps) {
    this.db = deps.db;
    this.sql = deps.sql;
    this.outbox = deps.outbox;
  }

  /** Whether an app of this id exists: one read of the primary key. */
  async exists(appId: string): Promise<boolean> {
    return (await this.db.app.findUnique({ where: { id: appId }, select: { id: true } })) !== null;
  }

  /** One app's row, undefined when there is none: one read by the primary key. */
  async find(appId: string): Promise<StoredApp | undefined> {
    const row = await this.db.app.findUnique({ where: { id: appId } });
    return row ? storedApp(row) : undefined;
  }

  /** Every app, by id. */
  async list(): Promise<StoredApp[]> {
    const rows = await this.db.app.findMany({ orderBy: { id: 'asc' } });
    return rows.map(storedApp);
  }

  /** The app's admin address, undefined when there is no such app: one read by the primary key. */
  async adminEmailOf(appId: string): Promise<string | undefined> {
    return (await this.db.app.findUnique({ where: { id: appId }, select: { adminEmail: true } }))?.adminEmail;
  }

  /** What a key check needs of the app, undefined when there is none: one read by the primary key. */
  async keyStateOf(appId: string): Promise<AppKeyState | undefined> {
    return (await this.db.app.findUnique({ where: { id: appId }, select: { frozen: true, keysFrozenForDeletion: true, incarnation: true } })) ?? undefined;
  }

  /**
   * The app's row and its first keys, in one transaction; false when the id is taken (a unique
   * violation, the id's row or, impossibly, a key's).
   */
  async create(appId: string, app: NewApp, keys: NewApiKey[]): Promise<boolean> {
    try {
      await this.db.$transaction([
        this.db.app.create({ data: { ...app, id: appId, allowedOrigins: JSON.stringify(app.allowedOrigins) } }),
        this.db.apiKey.createMany({ data: keys.map((key) => ({ ...key, tenant: appId, scopes: scopesColumn(key.scopes) })) }),
      ]);
      return true;
    } catch (error) {
      if (isUniqueViolation(error)) return false;
      throw error;
    }
  }

  /** Marks the app as the operator console's own (`reserved`): one UPDATE by the primary key; false when there is no such app. */
  async markReserved(appId: string): Promise<boolean> {
    return (await this.db.app.updateMany({ where: { id: appId }, data: { reserved: true } })).count === 1;
  }

  /** Changes the settings given: one UPDATE by the primary key; false when there is no such app (a concurrent delete won). */
  async update(appId: string, changes: Partial<AppSettings>): Promise<boolean> {
    const { allowedOrigins, ...rest } = changes;
    try {
      await this.db.app.update({ where: { id: appId }, data: { ...rest, ...(allowedOrigins !== undefined ? { allowedOrigins: JSON.stringify(allowedOrigins) } : {}) } });
      return true;
    } catch (error) {
      if (isRecordNotFound(error)) return false;
      throw error;
    }
  }

  /**
   * Removes the app and, through the foreign keys' cascades, every row it owns, in one statement;
   * false when it was not there (a concurrent delete won).
   */
  async delete(appId: string): Promise<boolean> {
    try {
      await this.db.app.delete({ where: { id: appId } });
      return true;
    } catch (error) {
      if (isRecordNotFound(error)) return false;
      throw error;
    }
  }

  /**
   * Schedules the app's deletion unless one is pending, with the deliveries of `report`, in one
   * unit (one conditional UPDATE by the primary key); undefined when there is no such app or
   * a deletion is already pending (and then nothing is reported). The worker is woken only on
   * `confirm`, since `undo` deletes the deliveries again.
   */
  async scheduleDeletion(appId: string, schedule: NewDeletion, report: WebhookEvent): Promise<ScheduledDeletion | undefined> {
    const { deleteAt, keysFreezeAt, nonce } = schedule;
    const deliveries = await this.outbox.deliveriesFor(appId, report.type, report.data);
    const { codec } = this.sql;
    const params = { tenant: appId, deleteAt: codec.time(deleteAt.getTime()), keysFreezeAt: codec.time(keysFreezeAt.getTime()), keysFrozen: codec.bool(false), nonce };
    const scheduled = await this.sql.unit([{ statement: 'scheduleAppDeletion', params, orFail: 'not_scheduled' }, ...webhookDeliverySteps(deliveries, codec)]);
    if (!scheduled.ok) return undefined;
    return {
      confirm: () => this.outbox.wake(deliveries),
      undo: () => this.unschedule(appId, nonce, deliveries),
    };
  }

  private async unschedule(appId: string, nonce: string, deliveries: NewWebhookDelivery[]): Promise<void> {
    await this.db.$transaction(async (tx) => {
      await tx.app.updateMany({ where: { id: appId, deletionNonce: nonce }, data: NOT_PENDING });
      if (deliveries.length > 0) await tx.webhookDelivery.deleteMany({ where: { tenant: appId, id: { in: deliveries.map((d) => d.id) } } });
    });
  }

  /** When the app's pending deletion happens (null: none pending); undefined when there is no such app. */
  async deleteAtOf(appId: string): Promise<Date | null | undefined> {
    return (await this.db.app.findUnique({ where: { id: appId }, select: { deleteAt: true } }))?.deleteAt;
  }

  /**
   * Clears the app's pending deletion (only the one whose abort link carries `nonce`, when given:
   * the nonce is cleared with it, in the statement that checks it, so a link works once), with the
   * deliveries of `report`, in one unit; false when nothing was pending (and then nothing is
   * reported).
   */
  async cancelDeletion(appId: string, nonce: string | undefined, report: WebhookEvent): Promise<boolean> {
    const { codec } = this.sql;
    const params = { tenant: appId, nonce: nonce ?? null, keysFrozen: codec.bool(false) };
    const cleared = await this.outbox.reported(appId, report, (deliveries) => this.sql.unit([{ statement: 'cancelAppDeletion', params, orFail: 'not_pending' }, ...webhookDeliverySteps(deliveries, codec)]), (outcome) => outcome.ok);
    return cleared.ok;
  }

  /** Whether the app's pending deletion is the one whose abort link carries `nonce`: one count by the primary key. */
  async isPendingDeletion(appId: string, nonce: string): Promise<boolean> {
    return (await this.db.app.count({ where: { id: appId, deletionNonce: nonce, deleteAt: { not: null } } })) === 1;
  }

  /** The apps with a step due at `now`: their data to delete, or their keys to freeze. */
  async dueDeletions(now: Date): Promise<{ id: string; deleteAt: Date | null }[]> {
    return this.db.app.findMany({
      where: { OR: [{ deleteAt: { lte: now } }, { keysFreezeAt: { lte: now }, keysFrozenForDeletion: false }] },
      select: { id: true, deleteAt: true },
    });
  }

  /**
   * Freezes the keys of an app whose freeze is due: one conditional UPDATE, so that of any number of
   * sweepers one does it; false when another did, or the deletion was cancelled meanwhile.
   */
  async freezeKeysForDeletion(appId: string, now: Date): Promise<boolean> {
    const { count } = await this.db.app.updateMany({ where: { id: appId, keysFrozenForDeletion: false, keysFreezeAt: { lte: now } }, data: { keysFrozenForDeletion: true } });
    return count > 0;
  }

  /** One conditional DELETE of an App row whose deletion is due; the cascades take every row of the app with it. False when another sweeper did. */
  async purge(appId: string, now: Date): Promise<boolean> {
    const { count } = await this.db.app.deleteMany({ where: { id: appId, deleteAt: { lte: now } } });
    return count > 0;
  }
}
