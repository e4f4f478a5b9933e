import type { AppFeatures } from '../../services/apps/apps';
import { changedFeatures } from './changedFeatures';

const current: AppFeatures = {
  eventLoggingIsEnabled: true,
  eventLoggingRetentionPeriod: 90,
  developerLoggingEndsAt: null,
  magicLinkEmailMonthlyQuota: 1000,
  maxUsers: null,
  allowAttestation: false,
  isGenerateSignInTokenEndpointEnabled: false,
  isMagicLinksEnabled: true,
  plan: 'trial',
  allowedOrigins: ['https://a.example'],
  sdkCompatibleLists: false,
};

describe('changedFeatures', () => {
  it('keeps only the fields whose values differ', () => {
    expect(changedFeatures(current, { eventLoggingIsEnabled: true, isMagicLinksEnabled: false, maxUsers: null, maxUsers2: undefined } as never)).toEqual({ isMagicLinksEnabled: false });
    expect(changedFeatures(current, { allowedOrigins: ['https://a.example'], eventLoggingRetentionPeriod: 30 })).toEqual({ eventLoggingRetentionPeriod: 30 });
    expect(changedFeatures(current, { allowedOrigins: ['https://a.example', 'https://b.example'], maxUsers: 0 })).toEqual({ allowedOrigins: ['https://a.example', 'https://b.example'], maxUsers: 0 });
  });

  it('is empty when a save changes nothing', () => {
    const { developerLoggingEndsAt: _, ...same } = current;
    expect(changedFeatures(current, same)).toEqual({});
  });
});
