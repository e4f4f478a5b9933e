import { encodeCbor } from './cbor';

/** mulberry32: a tiny seeded PRNG, so a fuzz run is repeatable from its seed. */
export function prng(seed: number) {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  return {
    next,
    int,
    chance: (p: number) => next() < p,
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)],
    bytes: (length: number) => Buffer.from(Array.from({ length }, () => int(0, 255))),
  };
}
export type Prng = ReturnType<typeof prng>;

/** A per-case seed: the run's seed mixed with the case's coordinates (FNV-1a over the text). */
export function caseSeed(seed: number, ...parts: (string | number)[]): number {
  let hash = 0x811c9dc5 ^ seed;
  for (const char of parts.join('|')) hash = Math.imul(hash ^ char.charCodeAt(0), 0x01000193) >>> 0;
  return hash >>> 0;
}

/** Strings that have broken services: control characters, odd Unicode, injections, sizes. */
export const ODD_STRINGS: readonly string[] = [
  '',
  ' ',
  '\u0000',
  'nul\u0000inside',
  '\ud800',
  'lone \udc00 low surrogate',
  '\u202eright-to-left override',
  'zero\u200bwidth',
  '\ufeffbom',
  'e\u0301 combining',
  '😀🏳️‍🌈',
  '\u0085\u2028\u2029 line separators',
  'ǅǈǋ titlecase',
  "'; DROP TABLE \"Credential\"; --",
  '%00%ff%zz',
  '../../etc/passwd',
  '<script>alert(1)</script>',
  '${jndi:ldap://127.0.0.1/x}',
  '{"json":"in a string"}',
  'true',
  '-1',
  '1e309',
  'NaN',
  '__proto__',
  'constructor',
  'x'.repeat(65),
  'y'.repeat(257),
  'z'.repeat(5000),
];

/** JSON values of every type, for replacing a field with the wrong one. */
export function oddJson(rng: Prng): unknown {
  switch (rng.int(0, 17)) {
    case 0:
      return null;
    case 1:
      return rng.pick([true, false]);
    case 2:
      return rng.pick([0, -1, 1.5, 2 ** 53 + 1, -(2 ** 63), 1e308, -0]);
    case 3:
      return [];
    case 4:
      return {};
    case 5:
      return Array.from({ length: rng.int(1, 3) }, () => rng.pick(ODD_STRINGS));
    case 6:
      return Array.from({ length: rng.pick([11, 100, 2000]) }, (_, i) => `item${i}`);
    case 7:
      return 'h'.repeat(rng.pick([1024, 20_000, 60_000]));
    case 8:
      return nestedValue(rng.int(20, 2000));
    case 9:
      return { nested: { deeper: rng.pick(ODD_STRINGS) } };
    case 10:
      return [[[]], { a: [null] }];
    default:
      return rng.pick(ODD_STRINGS);
  }
}

/** An object nested `depth` levels (built as a value: JSON.stringify copes with a few thousand). */
export function nestedValue(depth: number): unknown {
  let value: unknown = 'leaf';
  for (let i = 0; i < depth; i++) value = i % 2 === 0 ? { a: value } : [value];
  return value;
}

/** Texts sent as `application/json` that are not JSON, or not the JSON anyone expects. */
export const NOT_JSON: readonly string[] = [
  '{',
  '{"a":1,}',
  "{'single':'quotes'}",
  'undefined',
  'NaN',
  '[1,2',
  '\u0000',
  '{"a":"\\ud800"}',
  '{"a":"\\u0000"}',
  '{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}',
  '{"userId":"a","userId":"b","USERID":"c"}',
  'null',
  '0',
  '"a string"',
  '[]',
  'true',
  '\ufeff{}',
  '{"a":1}garbage',
];

/** JSON text nested far deeper than any real body (as text: too deep to stringify). */
export const deepJsonText = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);

export const b64url = (bytes: Buffer) => bytes.toString('base64url');

/** Values that are not base64url, or are but decode to nothing useful. */
export const BAD_BASE64URL: readonly string[] = ['', '!!!!', 'a', 'ab=c', '====', 'YWJj\u0000', 'A'.repeat(4097), 'YQ==YQ==', 'a b c', 'abc+/def', '😀'];

/** CBOR that no authenticator would send: truncated, lying lengths, wrong types, nesting, junk. */
export function badCbor(rng: Prng, real?: Buffer): Buffer {
  switch (rng.int(0, 13)) {
    case 0:
      return rng.bytes(rng.int(0, 64));
    case 1:
      return real ? real.subarray(0, rng.int(0, real.length - 1)) : Buffer.from([0xa3]);
    case 2:
      // A byte string claiming 2^64-1 bytes.
      return Buffer.from([0x5b, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]);
    case 3:
      // An array claiming 2^32-1 items.
      return Buffer.from([0x9a, 0xff, 0xff, 0xff, 0xff, 0x01]);
    case 4:
      // Indefinite-length array and map, never closed.
      return Buffer.from([0x9f, 0xbf, 0x61, 0x61, 0x01]);
    case 5:
      // Ten thousand nested one-item arrays.
      return Buffer.concat([Buffer.alloc(10_000, 0x81), Buffer.from([0x00])]);
    case 6:
      return encodeCbor(new Map<string, string | number | Uint8Array>([['fmt', 7], ['attStmt', 'x'], ['authData', 'not bytes']]) as never);
    case 7:
      return encodeCbor(new Map<string, unknown>([['fmt', rng.pick(['packed', 'tpm', 'android-key', 'fido-u2f', 'apple', 'android-safetynet', 'unknown'])], ['attStmt', new Map()], ['authData', rng.bytes(rng.int(0, 40))]]) as never);
    case 8: {
      // authData with the attested-data flag and a credential id length past the end.
      const authData = Buffer.concat([rng.bytes(32), Buffer.from([0x45]), Buffer.alloc(4), Buffer.alloc(16), Buffer.from([0xff, 0xff]), rng.bytes(8)]);
      return encodeCbor(new Map<string, unknown>([['fmt', 'none'], ['attStmt', new Map()], ['authData', authData]]) as never);
    }
    case 9: {
      // authData whose COSE key is junk CBOR.
      const authData = Buffer.concat([rng.bytes(32), Buffer.from([0x45]), Buffer.alloc(4), Buffer.alloc(16), Buffer.from([0x00, 0x04]), rng.bytes(4), Buffer.from([0xff, 0xfe, 0x5b])]);
      return encodeCbor(new Map<string, unknown>([['fmt', 'none'], ['attStmt', new Map()], ['authData', authData]]) as never);
    }
    case 10:
      // Tags, floats, simple values and undefined where a map is expected.
      return Buffer.from([0xc6, 0xf9, 0x7e, 0x00, 0xf7, 0xff]);
    case 11:
      return encodeCbor([1, 2, 3]);
    case 12:
      return real ? flipBytes(rng, real) : rng.bytes(37);
    default:
      return Buffer.from([0xa1, 0x63, 0x66, 0x6d, 0x74]); // a map whose value is missing
  }
}

/** `bytes` with a few bytes changed. */
export function flipBytes(rng: Prng, bytes: Buffer): Buffer {
  const copy = Buffer.from(bytes);
  for (let i = rng.int(1, 4); i > 0 && copy.length > 0; i--) copy[rng.int(0, copy.length - 1)] ^= rng.int(1, 255);
  return copy;
}

/** Authenticator data for a sign-in that is malformed: short, lying flags, junk extensions. */
export function badAuthenticatorData(rng: Prng, real: Buffer): Buffer {
  switch (rng.int(0, 5)) {
    case 0:
      return real.subarray(0, rng.int(0, 36));
    case 1:
      return Buffer.concat([real.subarray(0, 32), Buffer.from([0x85]), real.subarray(33), Buffer.from([0xbf, 0x61])]); // ED flag, junk extensions
    case 2:
      return Buffer.concat([real.subarray(0, 32), Buffer.from([0x45]), real.subarray(33)]); // AT flag without attested data
    case 3:
      return Buffer.concat([real, rng.bytes(rng.int(1, 100))]);
    case 4:
      return badCbor(rng, real);
    default:
      return flipBytes(rng, real);
  }
}

/** A token cut short, with a changed character, or with its kind's prefix swapped. */
export function damagedToken(rng: Prng, token: string): string {
  switch (rng.int(0, 4)) {
    case 0:
      return token.slice(0, rng.int(0, token.length - 1));
    case 1: {
      const at = rng.int(0, token.length - 1);
      return token.slice(0, at) + (token[at] === 'A' ? 'B' : 'A') + token.slice(at + 1);
    }
    case 2:
      return token.replace(/^[a-z_]+?_/, rng.pick(['verify_', 'register_', 'session_', 'abort_', '']));
    case 3:
      return `${token}.${token}`;
    default:
      return token.split('.').reverse().join('.');
  }
}
