import type { HotDriver } from './hotDriver';
import type { NewWebhookDelivery } from './hotPath';
import { hotPathOn } from './hotPathOn';
import type { UnitStep } from './writeUnit';

/**
 * A driver that records what the hot path asks of it, statement by statement, and answers as a
 * database would when every write changes one row. The test is about which statements a write
 * issues, with and without webhook deliveries; the statements themselves run against both real
 * databases in test/storage/hotPath.test.ts and test/http/webhooks.test.ts.
 */
function recordingDriver() {
  const issued: string[] = [];
  const driver: HotDriver = {
    read: async () => undefined,
    readAll: async () => [],
    write: async (statement) => {
      issued.push(statement);
      return { changes: 1 };
    },
    unit: async (steps: UnitStep[]) => {
      issued.push(`unit(${steps.map((s) => s.statement).join(', ')})`);
      return { ok: true };
    },
    time: (ms) => new Date(ms).toISOString(),
    bool: (value) => value,
    timeOf: (value) => Date.parse(String(value)),
    boolOf: (value) => value === true,
    close: async () => undefined,
  };
  return { issued, hot: hotPathOn(driver) };
}

const use = { tenant: 'app', descriptorId: 'cred', storedCounter: 1, newCounter: 2, backupState: false, uvInitialized: true, usedAt: 86_400_000 * 5, lastUsedDay: 5, device: '', country: '' };
const delivery: NewWebhookDelivery = { id: 'msg_1', tenant: 'app', endpointId: 'ep_1', eventType: 'signin.completed', payload: '{}', createdAt: 1 };

describe('the hot path with and without webhook deliveries', () => {
  it('issues exactly the statements it always did when the app has no subscribed endpoint', async () => {
    const { issued, hot } = recordingDriver();
    await hot.recordCredentialUse(use);
    await hot.recordCredentialUse(use, undefined);
    await hot.recordCredentialUse(use, []);
    await hot.redeemToken('app', 'token', 10);
    await hot.redeemToken('app', 'token', 10, []);
    await hot.deleteUser('app', 'user');
    await hot.deleteUser('app', 'user', []);
    expect(issued).toEqual([
      'recordCredentialUse',
      'recordCredentialUse',
      'recordCredentialUse',
      'redeemToken',
      'redeemToken',
      'unit(deleteUser, deleteUserCredentials, deleteUserAliases, uncountUser)',
      'unit(deleteUser, deleteUserCredentials, deleteUserAliases, uncountUser)',
    ]);
  });

  it('adds one insert of the deliveries to the write they report, in the same unit', async () => {
    const { issued, hot } = recordingDriver();
    expect(await hot.recordCredentialUse(use, [delivery])).toBe(true);
    expect(await hot.redeemToken('app', 'token', 10, [delivery, { ...delivery, id: 'msg_2' }])).toBe(true);
    await hot.deleteUser('app', 'user', [delivery]);
    await hot.deleteCredential('app', 'cred', 'user', [delivery]);
    await hot.replaceAliases('app', 'user', [], [delivery]);
    expect(issued).toEqual([
      'unit(recordCredentialUse, insertWebhookDeliveries)',
      'unit(redeemToken, insertWebhookDeliveries)',
      'unit(deleteUser, deleteUserCredentials, deleteUserAliases, uncountUser, insertWebhookDeliveries)',
      'unit(removeUserCredential, deleteCredential, uncountUser, deleteEmptyUser, insertWebhookDeliveries)',
      'unit(setUserAliasCount, deleteUserAliases, deleteEmptyUser, insertWebhookDeliveries)',
    ]);
  });
});
