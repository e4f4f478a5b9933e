import type { CredentialDescriptor, CredentialUse, EventKey, HotCredential, NewRegistration, NewWebhookDelivery, Queries, StoredCredential, StoredEvent, UserSummary } from './queries';
import type { SqlDriver } from './driver';
import { utcDayOf } from '../../core/utcDay';
import { userIdSearchRange } from './userIdSearchRange';
import type { UnitStep } from './unit';
import { aliasReplacementSteps, credentialDeletionSteps, eventWritingSteps, registrationSteps, userDeletionSteps, USER_EXISTED, webhookDeliveryStep, webhookDeliverySteps } from './units';


/** The queries on a driver: the same statements, encodings and units on either database. */
export function queriesOn(driver: SqlDriver): Queries {
  const { codec } = driver;
  /** The columns a sign-in reads (findCredential). */
  const hotColumnsOf = (row: Record<string, unknown>): HotCredential => ({
    descriptorId: row.descriptorId as string,
    userId: row.userId as string,
    userHandle: row.userHandle as string,
    publicKey: row.publicKey as string,
    signatureCounter: Number(row.signatureCounter),
    transports: row.transports as string,
    backupEligible: codec.boolOf(row.backupEligible),
    uvInitialized: codec.boolOf(row.uvInitialized),
    nickname: row.nickname as string,
    lastUsedDay: Number(row.lastUsedDay),
  });
  const hotCredentialOf = (row: Record<string, unknown> | undefined): HotCredential | undefined => row && hotColumnsOf(row);
  /** Every column (credentials/list). */
  const credentialOf = (row: Record<string, unknown>): StoredCredential => ({
    ...hotColumnsOf(row),
    attestationFmt: row.attestationFmt as string,
    aaGuid: row.aaGuid as string,
    rpid: row.rpid as string,
    origin: row.origin as string,
    country: row.country as string,
    device: row.device as string,
    backupState: codec.boolOf(row.backupState),
    isDiscoverable: row.isDiscoverable === null ? null : codec.boolOf(row.isDiscoverable),
    createdAt: codec.timeOf(row.createdAt),
    lastUsedAt: codec.timeOf(row.lastUsedAt),
    prfSalt: (row.prfSalt as string | null) ?? null,
    prfEnabled: row.prfEnabled === null || row.prfEnabled === undefined ? null : codec.boolOf(row.prfEnabled),
    madeByUpgrade: codec.boolOf(row.madeByUpgrade),
  });

  /** A page's users, in its order, with their aliases and passkeys as read after it; a user whose rows went between the reads is not listed. */
  const summariesOf = (ids: string[], aliases: Record<string, unknown>[], credentials: Record<string, unknown>[]): UserSummary[] => {
    const users = new Map<string, UserSummary>(ids.map((userId) => [userId, { userId, credentialsCount: 0, aliasCount: 0, aliases: [], lastUsedAt: null }]));
    for (const row of aliases) {
      const user = users.get(row.userId as string);
      if (!user) continue; // a user who arrived after the page was read
      user.aliases.push(row.plaintext as string | null);
      user.aliasCount += 1;
    }
    for (const row of credentials) {
      const user = users.get(row.userId as string);
      if (!user) continue;
      user.credentialsCount = Number(row.credentialsCount);
      user.lastUsedAt = codec.timeOf(row.lastUsedAt);
    }
    // Counted from the rows themselves.
    return [...users.values()].filter((user) => user.credentialsCount > 0 || user.aliasCount > 0);
  };

  const eventOf = (row: Record<string, unknown>): StoredEvent => ({
    id: row.id as string,
    performedAt: codec.timeOf(row.performedAt),
    eventType: row.eventType as string,
    message: row.message as string,
    severity: row.severity as string,
    performedBy: row.performedBy as string,
    subject: row.subject as string,
    apiKeyId: row.apiKeyId as string,
  });

  const withDeliveries = (steps: UnitStep[], deliveries: NewWebhookDelivery[]): UnitStep[] => [...steps, ...webhookDeliverySteps(deliveries, codec)];

  return {
    async findUserCredentials(appId, userId, limit) {
      return (await driver.readAll('findUserCredentials', { tenant: appId, userId, limit })).map((row) => ({ descriptorId: row.descriptorId as string, transports: row.transports as string, prfSalt: (row.prfSalt as string | null) ?? null }));
    },
    async findCredential(appId, descriptorId) {
      return hotCredentialOf(await driver.read('findCredential', { tenant: appId, descriptorId }));
    },
    async recordCredentialUse({ lastUsedDay, ...use }: CredentialUse, webhookDeliveries: NewWebhookDelivery[]) {
      const params = { ...use, backupState: codec.bool(use.backupState), uvInitialized: codec.bool(use.uvInitialized), usedAt: codec.time(use.usedAt) };
      const usedDay = utcDayOf(use.usedAt);
      const [statement, stepParams] = usedDay === lastUsedDay ? (['recordCredentialUse', params] as const) : (['recordCredentialUseOnNewDay', { ...params, usedDay }] as const);
      // With deliveries the use and its outbox rows commit together; without, the use joins the others of its turn.
      if (webhookDeliveries.length > 0) return (await driver.guardedWithDeliveries({ statement, params: stepParams, orFail: 'counter' }, webhookDeliveryStep(webhookDeliveries, codec))).ok;
      return driver.batched(statement, stepParams);
    },
    async redeemToken(appId, tokenId, expiresAt, webhookDeliveries: NewWebhookDelivery[]) {
      const params = { tenant: appId, tokenId, expiresAt: codec.time(expiresAt) };
      if (webhookDeliveries.length > 0) return (await driver.guardedWithDeliveries({ statement: 'redeemToken', params, orFail: 'token_already_used' }, webhookDeliveryStep(webhookDeliveries, codec))).ok;
      return driver.batched('redeemToken', params);
    },
    async redeemTokenAndFindCredential(appId, tokenId, expiresAt, descriptorId) {
      // Both at once: the redemption joins the others of its turn (one commit on PostgreSQL, the
      // writer thread's batch on SQLite), the read needs no commit at all.
      const [redeemed, row] = await Promise.all([
        driver.batched('redeemToken', { tenant: appId, tokenId, expiresAt: codec.time(expiresAt) }),
        driver.read('findCredential', { tenant: appId, descriptorId }),
      ]);
      return { redeemed, credential: hotCredentialOf(row) };
    },
    async isTokenRedeemed(appId, tokenId) {
      return (await driver.read('isTokenRedeemed', { tenant: appId, tokenId })) !== undefined;
    },

    async listCredentials(appId, userId) {
      return (await driver.readAll('listCredentials', { tenant: appId, userId })).map(credentialOf);
    },
    async userCapacity(appId, userId) {
      const row = await driver.read('userCapacity', { tenant: appId, userId });
      if (!row) return undefined;
      return {
        userCount: row.userCount === null ? 0 : Number(row.userCount),
        maxUsers: row.maxUsers === null ? null : Number(row.maxUsers),
        hasPasskey: row.credentialsCount !== null && Number(row.credentialsCount) > 0,
      };
    },
    async countUsers(appId) {
      const row = await driver.read('countUsers', { tenant: appId });
      return row ? Number(row.userCount) : 0;
    },
    async usersPage(appId, after, limit) {
      const ids = (await driver.readAll('usersPage', { tenant: appId, after, limit })).map((row) => row.userId as string);
      if (ids.length === 0) return { users: [], next: null };
      const range = { tenant: appId, after, last: ids[ids.length - 1] };
      const [aliases, credentials] = await Promise.all([driver.readAll('usersPageAliases', range), driver.readAll('usersPageCredentials', range)]);
      return { users: summariesOf(ids, aliases, credentials), next: ids.length === limit ? ids[ids.length - 1] : null };
    },
    async usersSearch(appId, prefix, after, limit) {
      const { from, below } = userIdSearchRange(prefix, after);
      const ids = (await (below === undefined ? driver.readAll('usersSearchToEnd', { tenant: appId, from, limit }) : driver.readAll('usersSearch', { tenant: appId, from, below, limit }))).map(
        (row) => row.userId as string,
      );
      if (ids.length === 0) return { users: [], next: null };
      // By the page's userIds, not a range of them: the other tables' indexes sort by the database's collation.
      const ofPage = { tenant: appId, userIds: JSON.stringify(ids) };
      const [aliases, credentials] = await Promise.all([driver.readAll('usersAliasesOf', ofPage), driver.readAll('usersCredentialsOf', ofPage)]);
      return { users: summariesOf(ids, aliases, credentials), next: ids.length === limit ? ids[ids.length - 1] : null };
    },

    async writeEvents(events) {
      if (events.length === 0) return;
      await driver.unit(eventWritingSteps(events, codec));
    },
    async eventsPage(appId, after, limit) {
      const [count, rows] = await Promise.all([
        driver.read('eventCount', { tenant: appId }),
        after === null ? driver.readAll('eventsPage', { tenant: appId, limit }) : driver.readAll('eventsPageAfter', { tenant: appId, performedAt: codec.time(after.performedAt), id: after.id, limit }),
      ]);
      return { events: rows.map(eventOf), total: count ? Number(count.eventCount) : 0 };
    },
    async eventsFiltered(appId, { before, since, types, limit, scan }) {
      const window = { tenant: appId, performedAt: codec.time(before.performedAt), id: before.id, sinceAt: codec.time(since), sinceId: '' };
      const lastOf = (events: StoredEvent[]): EventKey | null => (events.length === limit ? { performedAt: events[limit - 1].performedAt, id: events[limit - 1].id } : null);
      if (types === undefined) {
        // Every event of the range is answered: the read is the page.
        const events = (await driver.readAll('eventsBetween', { ...window, limit })).map(eventOf);
        return { events, next: lastOf(events) };
      }
      // The type is not in the index: the range is cut at the scan-th event first (the index alone),
      // so that a rare type costs at most `scan` rows, not the rest of the log.
      const edge = await driver.read('eventsWindowEdge', { ...window, skip: scan - 1 });
      const bounded = edge ? { ...window, sinceAt: edge.performedAt, sinceId: edge.id } : window;
      const events = (await driver.readAll('eventsOfTypesBetween', { ...bounded, types: JSON.stringify(types), limit })).map(eventOf);
      const full = lastOf(events);
      if (full) return { events, next: full };
      return { events, next: edge ? { performedAt: codec.timeOf(edge.performedAt), id: edge.id as string } : null };
    },

    storeRegistration(registration: NewRegistration) {
      return driver.storeRegistration ? driver.storeRegistration(registration) : driver.unit(registrationSteps(registration, codec));
    },
    async deleteCredential(appId, descriptorId, userId, webhookDeliveries: NewWebhookDelivery[]) {
      return (await driver.unit(withDeliveries(credentialDeletionSteps(appId, descriptorId, userId), webhookDeliveries))).ok;
    },
    async deleteUser(appId, userId, webhookDeliveries: NewWebhookDelivery[]) {
      // A userId the app never had (no user row) deleted nothing: no user.deleted for it.
      await driver.unit([...userDeletionSteps(appId, userId), ...webhookDeliverySteps(webhookDeliveries, codec, USER_EXISTED)]);
    },
    async replaceAliases(appId, userId, aliases, webhookDeliveries: NewWebhookDelivery[]) {
      await driver.unit(withDeliveries(aliasReplacementSteps(appId, userId, aliases), webhookDeliveries));
    },
    close: () => driver.close(),
  };
}
