import { featuresPatchSchema } from '../../services/apps/apps';
import { featuresFromForm } from './featuresFromForm';

const form = {
  isMagicLinksEnabled: 'on',
  magicLinkEmailMonthlyQuota: '500',
  eventLoggingRetentionPeriod: ' 30 ',
  maxUsers: '',
  allowedOrigins: 'https://shop.example.com\r\n\r\n  https://shop.example.com:8443  \n',
  sdkCompatibleLists: 'on',
};

describe('featuresFromForm', () => {
  it('reads the whole form: absent checkboxes are off, an empty most-users is no limit, origins one per line', () => {
    expect(featuresFromForm(form)).toEqual({
      isMagicLinksEnabled: true,
      magicLinkEmailMonthlyQuota: 500,
      isGenerateSignInTokenEndpointEnabled: false,
      eventLoggingIsEnabled: false,
      eventLoggingRetentionPeriod: 30,
      maxUsers: null,
      allowAttestation: false,
      allowedOrigins: ['https://shop.example.com', 'https://shop.example.com:8443'],
      sdkCompatibleLists: true,
    });
    expect(featuresPatchSchema.safeParse(featuresFromForm(form)).success).toBe(true);
  });

  it('never carries the plan (its own form needs a step-up), nor any field it does not know', () => {
    expect(Object.keys(featuresFromForm({ ...form, plan: 'enterprise', Plan: 'enterprise', developerLoggingEndsAt: 'x' }))).not.toEqual(expect.arrayContaining(['plan']));
    expect(featuresPatchSchema.parse(featuresFromForm({ ...form, plan: 'enterprise' })).plan).toBeUndefined();
  });

  it('leaves what is not a plain whole number for the API schema to refuse', () => {
    for (const bad of [{ eventLoggingRetentionPeriod: '91' }, { eventLoggingRetentionPeriod: '-1' }, { maxUsers: '1e3' }, { magicLinkEmailMonthlyQuota: '2.5' }, { maxUsers: ['1', '2'] }, { allowedOrigins: 'javascript:alert(1)' }]) {
      expect(featuresPatchSchema.safeParse(featuresFromForm({ ...form, ...bad })).success).toBe(false);
    }
  });
});
