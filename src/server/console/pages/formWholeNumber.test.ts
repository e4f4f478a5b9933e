import { formWholeNumber } from './formWholeNumber';

describe('formWholeNumber', () => {
  it('makes plain digits a number and leaves anything else as it was sent', () => {
    expect(formWholeNumber(' 42 ')).toBe(42);
    expect(formWholeNumber('0')).toBe(0);
    for (const odd of ['', '-1', '1e3', '2.5', '0x10', '12345678901', 'NaN']) expect(formWholeNumber(odd)).toBe(odd);
    expect(formWholeNumber(['1'])).toEqual(['1']);
    expect(formWholeNumber(undefined)).toBeUndefined();
  });
});
