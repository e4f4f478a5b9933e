import { z } from 'zod';
import { fieldErrors, fieldMessage, fieldName } from '../../shared/fieldErrors';
import { validationError } from './apiError';

// The official clients send property names in any case (`RPID`, `Origin`, `AttestationObject`,
// `clientDataJson`, `UserId`), numbers where strings are expected, and fields we do not know.
// These helpers make every body schema tolerate all three the way the reference service does.

function renameKeysCaseInsensitively(input: unknown, byLower: ReadonlyMap<string, string>): unknown {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) return input;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input as Record<string, unknown>)) {
    const canonical = byLower.get(key.toLowerCase());
    if (canonical === undefined) continue;
    // An exact-case key wins over a differently cased duplicate.
    if (canonical in out && key !== canonical) continue;
    out[canonical] = value;
  }
  return out;
}

/** z.object whose property names match case-insensitively; unknown properties are dropped. */
export function ciObject<T extends z.ZodRawShape>(shape: T) {
  // Built once per schema, not per request.
  const byLower = new Map(Object.keys(shape).map((key) => [key.toLowerCase(), key]));
  return z.preprocess((input) => renameKeysCaseInsensitively(input, byLower), z.object(shape));
}

const numberToString = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? String(v) : v);

/** A string that also accepts a JSON number (`"userId": 123` becomes `"123"`). */
export const looseString = () => z.preprocess(numberToString, z.string());

/** A looseString of at most `max` characters; every free-text field that ends up in a token has one. */
export const boundedString = (max: number) => looseString().pipe(z.string().max(max, `must be at most ${max} characters`));

/** Limits of the free-text fields, generous for real values and small enough to keep tokens short. */
export const MAX_NAME_LENGTH = 256;
export const MAX_ORIGIN_LENGTH = 2048;
export const MAX_RPID_LENGTH = 253;
/** The spec's limit for an authentication configuration's purpose. */
export const MAX_PURPOSE_LENGTH = 255;

/** The customer's user id: required, at most 64 bytes (it becomes the WebAuthn user handle). */
export const customerUserId = () =>
  looseString()
    .pipe(z.string().min(1, 'is required'))
    .refine((v) => Buffer.byteLength(v, 'utf8') <= 64, 'must be at most 64 bytes');

/** A whole number from a query string (text); '' (what the .NET SDK sends for "no value") means absent. */
export const queryInt = <T extends z.ZodType>(schema: T) =>
  z.preprocess((v) => (v === '' ? undefined : typeof v === 'string' && /^\d{1,10}$/.test(v) ? Number(v) : v), schema);

/** Optional whole seconds between 1 and `max`; a numeric string also does, and null or '' mean absent. */
export const optionalSeconds = (max: number) =>
  z.preprocess(
    (v) => (v === null || v === '' ? undefined : typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v),
    z
      .number({ message: 'must be a whole number of seconds' })
      .int('must be a whole number of seconds')
      .min(1, `must be between 1 and ${max}`)
      .max(max, `must be between 1 and ${max}`)
      .optional(),
  );

/** An enum whose values match case-insensitively and come out lowercase. */
export function ciEnum<const T extends readonly [string, ...string[]]>(values: T) {
  return z.preprocess((v) => (typeof v === 'string' ? v.toLowerCase() : v), z.enum(values, { message: `must be one of: ${values.join(', ')}` }));
}

/** A boolean that also accepts "true"/"false". */
export const looseBoolean = () =>
  z.preprocess((v) => (v === 'true' ? true : v === 'false' ? false : v), z.boolean({ message: 'must be true or false' }));

const UNPAIRED_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** What is wrong with a string no store can keep faithfully, if anything. */
export function unstorable(value: string): string | undefined {
  // PostgreSQL text columns refuse NUL; both stores turn unpaired surrogates into U+FFFD, so two
  // different userIds or aliases would silently become one.
  if (value.includes('\u0000')) return 'must not contain NUL characters';
  if (UNPAIRED_SURROGATE.test(value)) return 'must be well-formed Unicode (no unpaired surrogates)';
  return undefined;
}

interface PathNode {
  key: PropertyKey;
  parent: PathNode | undefined;
}

function pathOf(node: PathNode | undefined): PropertyKey[] {
  const path: PropertyKey[] = [];
  for (let at = node; at; at = at.parent) path.unshift(at.key);
  return path;
}

/** More than this many bad strings are not worth listing one by one. */
const MAX_REPORTED_STRINGS = 10;

/**
 * The first strings in `value` that cannot be stored, with their paths. Iterative, and a path is
 * only spelled out when something is found, so arbitrarily deep client extension results cost
 * linear time and no stack.
 */
function unstorableStrings(value: unknown): { path: PropertyKey[]; problem: string }[] {
  const found: { path: PropertyKey[]; problem: string }[] = [];
  const pending: { value: unknown; node: PathNode | undefined }[] = [{ value, node: undefined }];
  while (pending.length > 0 && found.length < MAX_REPORTED_STRINGS) {
    const { value: current, node } = pending.pop()!;
    if (typeof current === 'string') {
      const problem = unstorable(current);
      if (problem) found.push({ path: pathOf(node), problem });
    } else if (current !== null && typeof current === 'object') {
      // Pushed last to first, so that they are visited (and reported) in document order.
      const entries = Object.entries(current);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, item] = entries[i];
        pending.push({ value: item, node: { key: Array.isArray(current) ? Number(key) : key, parent: node } });
      }
    }
  }
  return found;
}

/**
 * Parses or throws a 400 validation problem with `errors: {field: [message]}`. `storable: false`
 * skips the check for strings no store can keep: for values that are only looked up (path ids),
 * where the services answer an id that cannot exist as not found.
 */
export function parseWith<S extends z.ZodType>(schema: S, input: unknown, { storable = true }: { storable?: boolean } = {}): z.output<S> {
  const result = schema.safeParse(input ?? {}, { reportInput: true });
  let errors: Record<string, string[]> = {};
  if (result.success) {
    if (!storable) return result.data;
    // Refused on every store alike, so that PostgreSQL does not turn it into a 500.
    for (const { path, problem } of unstorableStrings(result.data)) errors[fieldName(path)] = [fieldMessage(fieldName(path), problem)];
    if (Object.keys(errors).length === 0) return result.data;
  } else {
    errors = fieldErrors(result.error.issues);
  }
  const [firstField, firstMessages] = Object.entries(errors)[0];
  throw validationError(errors, firstMessages[0] ?? `The ${firstField} field is invalid.`);
}
