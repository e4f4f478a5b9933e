import { z } from 'zod';
import { ApiError } from './apiError';
import { boundedString, ciEnum, ciObject, customerUserId, looseBoolean, looseString, optionalSeconds, parseWith, unstorable } from './validation';

/** The validation problem `parseWith` throws for `input` (fails the test if it parses). */
function refusal(schema: z.ZodType, input: unknown, options?: { storable?: boolean }): { errors: Record<string, string[]>; detail: string | undefined } {
  try {
    parseWith(schema, input, options);
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    const apiError = error as ApiError;
    expect([apiError.code, apiError.status]).toEqual(['validation_failed', 400]);
    return { errors: apiError.extras.errors as Record<string, string[]>, detail: apiError.detail };
  }
  throw new Error(`parseWith accepted ${JSON.stringify(input)}`);
}

/** The messages of a one-field body `{value}` for a schema of that field. */
const messagesFor = (field: z.ZodType, value: unknown) => refusal(ciObject({ value: field }), { value }).errors.value;

const parseField = (field: z.ZodType, value: unknown) => (parseWith(ciObject({ value: field }), { value }) as { value: unknown }).value;

describe('ciObject', () => {
  const ceremony = ciObject({ userId: looseString(), rpId: looseString().optional(), clientDataJSON: looseString().optional() });

  it('matches property names in any case and answers them as the schema spells them', () => {
    expect(parseWith(ceremony, { USERID: 'u1', RPID: 'example.com', clientDataJson: 'e30' })).toEqual({ userId: 'u1', rpId: 'example.com', clientDataJSON: 'e30' });
  });

  it('lets the exact-case key win over a differently cased duplicate, whichever comes first', () => {
    expect(parseWith(ceremony, { USERID: 'other', userId: 'exact' }).userId).toBe('exact');
    expect(parseWith(ceremony, { userId: 'exact', USERID: 'other' }).userId).toBe('exact');
    expect(parseWith(ceremony, { userid: { not: 'a string' }, userId: 'exact' }).userId).toBe('exact');
  });

  it('drops properties it does not know', () => {
    expect(parseWith(ceremony, { userId: 'u1', extra: 1, nested: { a: 1 } })).toEqual({ userId: 'u1' });
  });

  it('drops a __proto__ property without polluting anything', () => {
    const parsed = parseWith(ceremony, JSON.parse('{"userId":"u1","__proto__":{"polluted":true}}'));
    expect(parsed).toEqual({ userId: 'u1' });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect((parsed as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('applies to nested objects too', () => {
    const schema = ciObject({ response: ciObject({ attestationObject: looseString() }) });
    expect(parseWith(schema, { Response: { AttestationObject: 'o2M' } })).toEqual({ response: { attestationObject: 'o2M' } });
  });

  it.each([
    ['an array', [{ userId: 'u1' }]],
    ['a string', 'u1'],
    ['a number', 42],
  ])('refuses %s as the whole body, naming the body', (_label, body) => {
    expect(Object.keys(refusal(ceremony, body).errors)).toEqual(['body']);
  });
});

describe('looseString', () => {
  it('takes a JSON number as its decimal text', () => {
    expect(parseField(looseString(), 123)).toBe('123');
    expect(parseField(looseString(), 1.5)).toBe('1.5');
    expect(parseField(looseString(), 'text')).toBe('text');
  });

  it.each([true, { a: 1 }, ['a']])('refuses %p', (value) => {
    expect(messagesFor(looseString(), value)).toHaveLength(1);
  });
});

describe('boundedString', () => {
  it('accepts up to its limit, numbers included, and says the limit beyond it', () => {
    expect(parseField(boundedString(5), 'abcde')).toBe('abcde');
    expect(parseField(boundedString(5), 12345)).toBe('12345');
    expect(messagesFor(boundedString(5), 'abcdef')).toEqual(['The value field must be at most 5 characters.']);
    expect(messagesFor(boundedString(5), 123456)).toEqual(['The value field must be at most 5 characters.']);
  });
});

describe('customerUserId', () => {
  it('is required, counted in UTF-8 bytes up to 64 (it becomes the user handle)', () => {
    expect(parseField(customerUserId(), 42)).toBe('42');
    expect(parseField(customerUserId(), 'é'.repeat(32))).toBe('é'.repeat(32));
    expect(messagesFor(customerUserId(), 'é'.repeat(33))).toEqual(['The value field must be at most 64 bytes.']);
    expect(messagesFor(customerUserId(), '')).toEqual(['The value field is required.']);
  });
});

describe('optionalSeconds', () => {
  const seconds = optionalSeconds(60);

  it('reads whole seconds from a number or a numeric string; null, an empty string or nothing mean absent', () => {
    expect([30, '30', 1, 60].map((v) => parseField(seconds, v))).toEqual([30, 30, 1, 60]);
    expect([null, '', undefined].map((v) => parseField(seconds, v))).toEqual([undefined, undefined, undefined]);
  });

  it.each([0, 61, '61', -5])('says the range for %p', (value) => {
    expect(messagesFor(seconds, value)).toEqual(['The value field must be between 1 and 60.']);
  });

  it.each([1.5, 'soon', ' 30', '1e1', true])('asks for whole seconds for %p', (value) => {
    expect(messagesFor(seconds, value)).toEqual(['The value field must be a whole number of seconds.']);
  });
});

describe('ciEnum', () => {
  const verification = ciEnum(['required', 'preferred', 'discouraged']);

  it('matches in any case and answers lowercase', () => {
    expect(['Required', 'PREFERRED', 'discouraged'].map((v) => parseField(verification, v))).toEqual(['required', 'preferred', 'discouraged']);
  });

  it('lists the values it takes', () => {
    expect(messagesFor(verification, 'maybe')).toEqual(['The value field must be one of: required, preferred, discouraged.']);
    expect(messagesFor(verification, 1)).toEqual(['The value field must be one of: required, preferred, discouraged.']);
  });
});

describe('looseBoolean', () => {
  it('takes booleans and the strings "true" and "false"', () => {
    expect([true, false, 'true', 'false'].map((v) => parseField(looseBoolean(), v))).toEqual([true, false, true, false]);
  });

  it.each(['yes', 1, 0, 'TRUE?'])('refuses %p', (value) => {
    expect(messagesFor(looseBoolean(), value)).toEqual(['The value field must be true or false.']);
  });
});

describe('unstorable', () => {
  it('passes well-formed text, emoji (paired surrogates) included', () => {
    expect(['', 'plain', 'Zoë', '🙂👩‍👩‍👧', '\u202e'].map(unstorable)).toEqual([undefined, undefined, undefined, undefined, undefined]);
  });

  it('names NUL characters and unpaired surrogates', () => {
    expect(unstorable('a\u0000b')).toBe('must not contain NUL characters');
    for (const value of ['a\ud800', '\udc00b', '\udc00\ud800', '\ud83d']) expect({ value, problem: unstorable(value) }).toEqual({ value, problem: 'must be well-formed Unicode (no unpaired surrogates)' });
  });
});

describe('parseWith', () => {
  const body = ciObject({ userId: customerUserId(), aliases: z.array(looseString()).optional(), extensions: z.unknown().optional() });

  it('answers the parsed value', () => {
    expect(parseWith(body, { userId: 'u1', aliases: ['a', 2] })).toEqual({ userId: 'u1', aliases: ['a', '2'] });
  });

  it('reads a missing body as an empty one', () => {
    expect(refusal(body, undefined).errors).toEqual({ userId: ['The userId field is required.'] });
    expect(refusal(body, null).errors).toEqual({ userId: ['The userId field is required.'] });
  });

  it('answers {field: [messages]} for every bad field, items by their index, with the first message as detail', () => {
    const { errors, detail } = refusal(body, { userId: '', aliases: ['ok', true, 'ok', { a: 1 }] });
    expect(Object.keys(errors).sort()).toEqual(['aliases.1', 'aliases.3', 'userId']);
    expect(errors.userId).toEqual(['The userId field is required.']);
    for (const messages of Object.values(errors)) for (const message of messages) expect(message).toMatch(/^The [\w.]+ field .+\.$/);
    expect(detail).toBe(Object.values(errors)[0][0]);
  });

  it('refuses strings no store can keep, wherever they are, with their path', () => {
    expect(refusal(body, { userId: 'u\u00001' }).errors).toEqual({ userId: ['The userId field must not contain NUL characters.'] });
    expect(refusal(body, { userId: 'u1', aliases: ['fine', 'x\udfff'] }).errors).toEqual({ 'aliases.1': ['The aliases.1 field must be well-formed Unicode (no unpaired surrogates).'] });
    expect(refusal(body, { userId: 'u1', extensions: { credProps: { list: ['a', 'b\u0000'] } } }).errors).toEqual({
      'extensions.credProps.list.1': ['The extensions.credProps.list.1 field must not contain NUL characters.'],
    });
  });

  it('reports the first ten unstorable strings, in document order', () => {
    const aliases = Array.from({ length: 25 }, (_, i) => `alias${i}\u0000`);
    const { errors, detail } = refusal(body, { userId: 'u1', aliases });
    expect(Object.keys(errors)).toEqual(Array.from({ length: 10 }, (_, i) => `aliases.${i}`));
    expect(detail).toBe('The aliases.0 field must not contain NUL characters.');
  });

  it('finds an unstorable string 10,000 levels deep without exhausting the stack', () => {
    let deep: unknown = 'bottom\u0000';
    for (let i = 0; i < 10_000; i++) deep = { a: deep };
    const { errors } = refusal(body, { userId: 'u1', extensions: deep });
    expect(Object.keys(errors)).toEqual([`extensions${'.a'.repeat(10_000)}`]);
  });

  it('with storable: false, answers such strings as they are (for values only looked up)', () => {
    expect(parseWith(body, { userId: 'u\u00001' }, { storable: false })).toEqual({ userId: 'u\u00001' });
  });
});
