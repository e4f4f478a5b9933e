import type { AppEvent, EventLog } from '../events/eventLog';
import { FailedKeyUses } from './failedKeyUses';

describe('FailedKeyUses', () => {
  let now = Date.parse('2026-11-25T10:00:00.000Z');
  let recorded: { appId: string; event: AppEvent; performedAt?: number }[];
  let tallies: FailedKeyUses;
  beforeEach(() => {
    recorded = [];
    const events = { record: (appId: string, event: AppEvent, performedAt?: number) => recorded.push({ appId, event, performedAt }) } as unknown as EventLog;
    tallies = new FailedKeyUses({ events, logger: undefined, now: () => now });
  });
  const advance = (ms: number) => (now += ms);

  it('records a minute of refusals of one key from one address as one event with the count', () => {
    for (let i = 0; i < 200; i++) tallies.note('app1', 'secret', 'ab12', 'invalid', '203.0.113.7');
    advance(59_999);
    tallies.recordDue();
    expect(recorded).toEqual([]);
    advance(1);
    tallies.recordDue();
    expect(recorded).toEqual([
      {
        appId: 'app1',
        event: {
          type: 'ApiAuthInvalidSecretKeyUsed',
          message: 'A secret key that does not match the key with this id was used 200 times from 203.0.113.7 within a minute.',
          subject: 'ab12',
          performedBy: 'Unknown User',
          apiKeyId: 'ab12',
        },
        // Dated at the first refusal, where it belongs in the log.
        performedAt: Date.parse('2026-11-25T10:00:00.000Z'),
      },
    ]);
    // The next minute starts a new tally.
    tallies.note('app1', 'secret', 'ab12', 'invalid', '203.0.113.7');
    tallies.recordAll();
    expect(recorded[1].event.message).toMatch(/was used once from 203\.0\.113\.7/);
  });

  it('keeps apart keys, kinds, reasons and addresses', () => {
    tallies.note('app1', 'secret', 'ab12', 'invalid', '203.0.113.7');
    tallies.note('app1', 'secret', 'ab12', 'invalid', '203.0.113.8');
    tallies.note('app1', 'secret', 'cd34', 'invalid', '203.0.113.7');
    tallies.note('app1', 'public', 'ab12', 'locked', '203.0.113.7');
    tallies.note('app2', 'secret', 'ab12', 'deleting', '203.0.113.7');
    tallies.recordAll();
    expect(recorded.map((r) => [r.appId, r.event.type, r.event.subject])).toEqual([
      ['app1', 'ApiAuthInvalidSecretKeyUsed', 'ab12'],
      ['app1', 'ApiAuthInvalidSecretKeyUsed', 'ab12'],
      ['app1', 'ApiAuthInvalidSecretKeyUsed', 'cd34'],
      ['app1', 'ApiAuthDisabledPublicKeyUsed', 'ab12'],
      ['app2', 'ApiAuthDisabledSecretKeyUsed', 'ab12'],
    ]);
    tallies.recordAll();
    expect(recorded).toHaveLength(5);
  });
});
