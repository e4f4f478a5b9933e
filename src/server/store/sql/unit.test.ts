import { stepConditionHolds } from './unit';

describe('stepConditionHolds', () => {
  const kept = { user: { credentialsCount: 1 }, big: { credentialsCount: '5' } };

  it('compares a kept row’s column as a number, whatever the driver returned it as', () => {
    expect(stepConditionHolds({ step: 'user', column: 'credentialsCount', equals: 1 }, kept)).toBe(true);
    expect(stepConditionHolds({ step: 'user', column: 'credentialsCount', equals: 2 }, kept)).toBe(false);
    expect(stepConditionHolds({ step: 'big', column: 'credentialsCount', above: 0 }, kept)).toBe(true);
    expect(stepConditionHolds({ step: 'big', column: 'credentialsCount', above: 5 }, kept)).toBe(false);
  });

  it('never holds for a step that kept no row', () => {
    expect(stepConditionHolds({ step: 'user', column: 'credentialsCount', above: -1 }, { user: undefined })).toBe(false);
    expect(stepConditionHolds({ step: 'missing', column: 'credentialsCount', above: -1 }, kept)).toBe(false);
  });
});
