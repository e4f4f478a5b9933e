import { z } from 'zod';
import { fieldErrors, fieldMessage, fieldName } from './fieldErrors';

/** The `errors` of a failed parse of `input` by `schema`, as both sides answer them. */
function errorsOf(schema: z.ZodType, input: unknown): Record<string, string[]> {
  const result = schema.safeParse(input, { reportInput: true });
  if (result.success) throw new Error(`the schema accepted ${JSON.stringify(input)}`);
  return fieldErrors(result.error.issues);
}

describe('fieldName', () => {
  it('joins a path with dots, array indexes included, and calls the empty path the body', () => {
    expect(fieldName(['userId'])).toBe('userId');
    expect(fieldName(['aliases', 2])).toBe('aliases.2');
    expect(fieldName(['response', 'transports', 0])).toBe('response.transports.0');
    expect(fieldName([])).toBe('body');
  });
});

describe('fieldMessage', () => {
  it('writes one sentence, ending in exactly one full stop', () => {
    expect(fieldMessage('userId', 'is required')).toBe('The userId field is required.');
    expect(fieldMessage('userId', 'is required.')).toBe('The userId field is required.');
  });
});

describe('fieldErrors', () => {
  const schema = z.object({ userId: z.string(), aliases: z.array(z.string().max(3, 'must be at most 3 characters')).optional(), count: z.number().optional() });

  it('says a missing or null field is required, whatever type was expected', () => {
    expect(errorsOf(schema, {})).toEqual({ userId: ['The userId field is required.'] });
    expect(errorsOf(schema, { userId: null })).toEqual({ userId: ['The userId field is required.'] });
  });

  it('names each bad field by its path, array items by index', () => {
    expect(errorsOf(schema, { userId: 'u1', aliases: ['ok', 'too long', 'ok', 'long again'] })).toEqual({
      'aliases.1': ['The aliases.1 field must be at most 3 characters.'],
      'aliases.3': ['The aliases.3 field must be at most 3 characters.'],
    });
  });

  it("drops zod's 'Invalid input: ' and writes the reason as the rest of the sentence", () => {
    const [message] = errorsOf(schema, { userId: 42 }).userId;
    expect(message).toMatch(/^The userId field expected string, received number\.$/);
  });

  it('collects several messages of one field under it', () => {
    const twoRules = z.object({ code: z.string().min(5, 'must be at least 5 characters').regex(/^\d+$/, 'must be digits') });
    expect(errorsOf(twoRules, { code: 'ab' })).toEqual({ code: ['The code field must be at least 5 characters.', 'The code field must be digits.'] });
  });

  it('names the whole body "body"', () => {
    expect(Object.keys(errorsOf(schema, 'not an object'))).toEqual(['body']);
  });
});
