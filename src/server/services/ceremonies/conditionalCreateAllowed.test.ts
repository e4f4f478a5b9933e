import { ApiError } from '../../core/apiError';
import { conditionalCreateAllowed } from './conditionalCreateAllowed';

describe('conditionalCreateAllowed', () => {
  it('begins a conditional create only for an upgrade token that asks for one', () => {
    expect(conditionalCreateAllowed('conditional', true)).toBe(true);
    expect(conditionalCreateAllowed(undefined, true)).toBe(false);
    expect(conditionalCreateAllowed(undefined, false)).toBe(false);
  });

  it('refuses an ordinary token that asks for one, naming the code', () => {
    expect(() => conditionalCreateAllowed('conditional', false)).toThrow(ApiError);
    try {
      conditionalCreateAllowed('conditional', false);
    } catch (error) {
      expect((error as ApiError).code).toBe('conditional_create_not_allowed');
    }
  });
});
