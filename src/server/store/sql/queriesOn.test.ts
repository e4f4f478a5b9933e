import type { SqlDriver } from './driver';
import type { NewWebhookDelivery } from './queries';
import { queriesOn } from './queriesOn';
import { postgresCodec } from './postgresCodec';
import type { UnitStep } from './unit';

/**
 * A driver that records what the queries ask of it, capability by capability, and answers as a
 * database would when every write changes one row. The test is about which statements a write
 * issues, and how, with and without webhook deliveries; the statements themselves run against both
 * real databases in test/storage/hotPath.test.ts and test/http/webhooks.test.ts.
 */
function recordingDriver() {
  const issued: string[] = [];
  const driver: SqlDriver = {
    codec: postgresCodec,
    read: async () => undefined,
    readAll: async () => [],
    write: async (statement) => {
      issued.push(`write(${statement})`);
      return { changes: 1 };
    },
    writeAll: async () => [],
    batched: async (statement) => {
      issued.push(`batched(${statement})`);
      return true;
    },
    guardedWithDeliveries: async (write: UnitStep, deliveries: UnitStep) => {
      issued.push(`guardedWithDeliveries(${write.statement}, ${deliveries.statement})`);
      return { ok: true, kept: {} };
    },
    composed: async () => [],
    unit: async (steps: UnitStep[]) => {
      issued.push(`unit(${steps.map((s) => s.statement).join(', ')})`);
      return { ok: true, kept: {} };
    },
    close: async () => undefined,
  };
  return { issued, queries: queriesOn(driver) };
}

const use = { tenant: 'app', descriptorId: 'cred', storedCounter: 1, newCounter: 2, backupState: false, uvInitialized: true, usedAt: 86_400_000 * 5, lastUsedDay: 5, device: '', country: '' };
const delivery: NewWebhookDelivery = { id: 'msg_1', tenant: 'app', endpointId: 'ep_1', eventType: 'signin.completed', payload: '{}', createdAt: 1 };

describe('the queries with and without webhook deliveries', () => {
  it('asks for the batched write alone when the app has no subscribed endpoint', async () => {
    const { issued, queries } = recordingDriver();
    await queries.recordCredentialUse(use, []);
    await queries.recordCredentialUse({ ...use, lastUsedDay: 4 }, []);
    await queries.redeemToken('app', 'token', 10, []);
    await queries.deleteUser('app', 'user', []);
    expect(issued).toEqual([
      'batched(recordCredentialUse)',
      'batched(recordCredentialUseOnNewDay)',
      'batched(redeemToken)',
      'unit(deleteUser, deleteUserCredentials, deleteUserAliases, uncountUser)',
    ]);
  });

  it('adds one insert of the deliveries to the write they report, committed with it', async () => {
    const { issued, queries } = recordingDriver();
    expect(await queries.recordCredentialUse(use, [delivery])).toBe(true);
    expect(await queries.redeemToken('app', 'token', 10, [delivery, { ...delivery, id: 'msg_2' }])).toBe(true);
    await queries.deleteUser('app', 'user', [delivery]);
    await queries.deleteCredential('app', 'cred', 'user', [delivery]);
    await queries.replaceAliases('app', 'user', [], [delivery]);
    expect(issued).toEqual([
      'guardedWithDeliveries(recordCredentialUse, insertWebhookDeliveries)',
      'guardedWithDeliveries(redeemToken, insertWebhookDeliveries)',
      'unit(deleteUser, deleteUserCredentials, deleteUserAliases, uncountUser, insertWebhookDeliveries)',
      'unit(removeUserCredential, deleteCredential, uncountUser, deleteEmptyUser, insertWebhookDeliveries)',
      'unit(setUserAliasCount, deleteUserAliases, deleteEmptyUser, insertWebhookDeliveries)',
    ]);
  });
});
