import { ORIGIN, RPID } from './ceremonies';
import { BAD_BASE64URL, NOT_JSON, ODD_STRINGS, b64url, badAuthenticatorData, badCbor, damagedToken, deepJsonText, oddJson, type Prng } from './fuzz';
import { webhookIdsOf } from './appData';
import { keyIdOf } from './http';
import { createCredential, getAssertion, type SoftCredential } from './softwareAuthenticator';
import { MANAGEMENT_KEY, type TestApp, type TestService } from './testService';

// The requests of the fuzz suite (test/http/fuzz.test.ts), generated from an operation of the
// OpenAPI document and the apps of its world.

export type JsonSchema = {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  enum?: unknown[];
  const?: unknown;
  minimum?: number;
  maximum?: number;
};
export interface Parameter {
  name: string;
  in: 'path' | 'query';
  required: boolean;
  schema: JsonSchema;
}
export interface Operation {
  operationId: string;
  method: string;
  path: string;
  security: Record<string, string[]>[];
  parameters: Parameter[];
  requestBody?: { content: { 'application/json': { schema: JsonSchema } } };
  responses: Record<string, { content?: Record<string, unknown> }>;
}

/** The apps and values the fuzzer draws on: A is the caller, B the bystander whose rows are watched, C the management API's target. */
export interface World {
  a: TestApp;
  b: TestApp;
  c: TestApp;
  cKeyIds: string[];
  aUserId: string;
  bUserId: string;
  aCredential: SoftCredential;
  bCredentialId: string;
  /** A's and B's tokens of every kind: B's are the cross-app ones. */
  tokens: string[];
  bTokens: string[];
  aliases: string[];
  bAlias: string;
}


/** B's own value for a field by its name: what a caller of A must never reach B's data with. */
export function bystanderValue(name: string, rng: Prng, world: World): unknown {
  switch (name.toLowerCase()) {
    case 'token':
    case 'session':
      return rng.pick(world.bTokens);
    case 'userid':
      return world.bUserId;
    case 'userhandle':
      return b64url(Buffer.from(world.bUserId));
    case 'credentialid':
    case 'rawid':
      return world.bCredentialId;
    case 'id':
      return rng.pick([world.bCredentialId, webhookIdsOf(world.b.appId).endpointId]);
    case 'deliveryid':
      return webhookIdsOf(world.b.appId).deliveryId;
    case 'alias':
      return world.bAlias;
    case 'aliases':
      return [world.bAlias];
    default:
      return undefined;
  }
}

/** A plausible value for a field by its name, drawn from both apps' real values, or undefined. */
export function knownValue(name: string, rng: Prng, world: World, crossApp = false): unknown {
  const bystanders = crossApp ? bystanderValue(name, rng, world) : undefined;
  if (bystanders !== undefined) return bystanders;
  switch (name.toLowerCase()) {
    case 'token':
    case 'session':
      return rng.chance(0.6) ? rng.pick(world.tokens) : damagedToken(rng, rng.pick(world.tokens));
    case 'userid':
    case 'userhandle':
      return rng.pick([world.aUserId, world.bUserId, b64url(Buffer.from(world.bUserId))]);
    case 'credentialid':
    case 'rawid':
      return rng.chance(0.7) ? rng.pick([world.aCredential.idB64, world.bCredentialId]) : rng.pick(BAD_BASE64URL);
    case 'id':
      return rng.chance(0.7)
        ? rng.pick([world.aCredential.idB64, world.bCredentialId, webhookIdsOf(world.a.appId).endpointId, webhookIdsOf(world.b.appId).endpointId])
        : rng.pick(BAD_BASE64URL);
    case 'deliveryid':
      return rng.pick([webhookIdsOf(world.a.appId).deliveryId, webhookIdsOf(world.b.appId).deliveryId, 'msg_', `msg_${'0'.repeat(36)}`]);
    case 'url':
      return rng.pick(['https://hooks.example.com/in', 'http://127.0.0.1:9/in', 'https://169.254.169.254/latest', 'https://[::1]/x', 'file:///etc/passwd', 'javascript:alert(1)', 'https://user:pw@example.com/']);
    case 'eventtypes':
      return rng.pick([['user.deleted'], ['passkey.registered', 'signin.completed'], ['webhook.test'], ['nope'], []]);
    case 'attestationobject':
    case 'authenticatordata':
      return rng.chance(0.8) ? b64url(badCbor(rng)) : rng.pick(BAD_BASE64URL);
    case 'clientdatajson':
      return b64url(Buffer.from(rng.chance(0.5) ? JSON.stringify({ type: 'webauthn.get', challenge: 'x', origin: ORIGIN }) : rng.pick(ODD_STRINGS)));
    case 'signature':
      return b64url(rng.bytes(rng.int(0, 80)));
    case 'origin':
      return rng.pick([ORIGIN, 'http://localhost', 'android:apk-key-hash:abc', 'null']);
    case 'rpid':
      return rng.pick([RPID, 'localhost', '.', 'example.com.']);
    case 'alias':
      return rng.pick(world.aliases);
    case 'aliases':
      return [rng.pick(world.aliases)];
    case 'emailaddress':
    case 'adminemail':
      return rng.pick(['admin@example.com', 'a@b', 'no-at-sign']);
    case 'urltemplate':
      return rng.pick(['https://shop.example.com/?t=$TOKEN', 'javascript:alert(1)//$TOKEN', 'https://x/']);
    case 'purpose':
      return rng.pick(['sign-in', 'step-up', 'checkout', 'nope']);
    case 'timetolive':
      return rng.pick(['00:05:00', '30.00:00:01', 120, '1.02:03:04']);
    case 'expiresat':
      return rng.pick([new Date(Date.now() + 60_000).toISOString(), '2000-01-01T00:00:00Z', '9999-12-31T23:59:59Z']);
    default:
      return undefined;
  }
}

/** A value that fits `schema` more or less, so that a mutation lands past the first check. */
export function sample(schema: JsonSchema, name: string, rng: Prng, world: World, crossApp = false, depth = 0): unknown {
  if (schema.anyOf) return sample(rng.pick(schema.anyOf.filter((s) => s.type !== 'null').concat(schema.anyOf)), name, rng, world, crossApp, depth);
  const known = knownValue(name, rng, world, crossApp);
  if (known !== undefined && (crossApp || rng.chance(0.85))) return known;
  if (schema.const !== undefined) return schema.const;
  if (schema.enum) return rng.pick(schema.enum);
  const type = Array.isArray(schema.type) ? rng.pick(schema.type) : schema.type;
  switch (type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const [key, property] of Object.entries(schema.properties ?? {})) {
        if ((schema.required ?? []).includes(key) || rng.chance(0.6)) out[key] = sample(property, key, rng, world, crossApp, depth + 1);
      }
      return out;
    }
    case 'array':
      return depth > 6 ? [] : Array.from({ length: rng.int(0, 3) }, () => sample(schema.items ?? {}, name, rng, world, crossApp, depth + 1));
    case 'integer':
    case 'number':
      return rng.int(Math.max(schema.minimum ?? -5, -1e6), Math.min(schema.maximum ?? 1000, 1e6));
    case 'boolean':
      return rng.chance(0.5);
    case 'null':
      return null;
    case 'string':
      return rng.chance(0.7) ? `v${rng.int(0, 1e6)}` : rng.pick(ODD_STRINGS);
    default:
      return oddJson(rng);
  }
}

/** Every (container, key) inside `value`, for picking a place to damage. */
function slots(value: unknown, into: [Record<string, unknown> | unknown[], string | number][] = [], depth = 0): typeof into {
  if (depth > 8 || value === null || typeof value !== 'object') return into;
  for (const [key, item] of Object.entries(value)) {
    into.push([value as Record<string, unknown>, Array.isArray(value) ? Number(key) : key]);
    slots(item, into, depth + 1);
  }
  return into;
}

/** One to three damages: a field of the wrong type or size, removed, renamed, or an extra one. */
export function mutate(value: unknown, rng: Prng): unknown {
  for (let i = rng.int(1, 3); i > 0; i--) {
    const places = slots(value);
    if (places.length === 0) return oddJson(rng);
    const [container, key] = rng.pick(places);
    const record = container as Record<string | number, unknown>;
    switch (rng.int(0, 5)) {
      case 0:
        if (!Array.isArray(container)) delete record[key];
        break;
      case 1:
        if (!Array.isArray(container) && typeof key === 'string') {
          record[rng.chance(0.5) ? key.toUpperCase() : `${key}X`] = record[key];
          delete record[key];
        }
        break;
      case 2:
        if (!Array.isArray(container)) record[rng.pick(['extra', 'tenant', 'appId', 'isAdmin', '$where', 'userId'])] = oddJson(rng);
        break;
      default:
        record[key] = oddJson(rng);
    }
  }
  return value;
}

export interface Body {
  text: string;
  contentType?: string;
  encoding?: string;
}

export const json = (value: unknown): Body => ({ text: JSON.stringify(value) ?? 'null', contentType: 'application/json' });

/** A body for `operation`: mostly damaged JSON from its schema, sometimes not JSON at all or of another type. */
export function body(operation: Operation, rng: Prng, world: World): Body | undefined {
  const schema = operation.requestBody?.content['application/json'].schema;
  if (!schema && rng.chance(0.7)) return undefined;
  const valid = sample(schema ?? { type: 'object' }, '', rng, world);
  switch (rng.int(0, 13)) {
    case 0:
      return { text: rng.pick(NOT_JSON), contentType: 'application/json' };
    case 1:
      return { text: deepJsonText(rng.pick([100, 5000, 20_000])), contentType: 'application/json' };
    case 2:
      return { text: JSON.stringify({ pad: 'p'.repeat(70_000) }), contentType: 'application/json' };
    case 3:
      return { text: JSON.stringify(valid), contentType: rng.pick(['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml', 'application/cbor', 'application/json-patch+json', 'application/json; charset=utf-16', 'application/json; charset=latin1', '*/*', 'application/json, text/plain']) };
    case 4:
      return { text: JSON.stringify(valid) };
    case 5:
      return { text: JSON.stringify(valid), contentType: 'application/json', encoding: rng.pick(['gzip', 'deflate', 'br', 'x-unknown', 'identity, gzip']) };
    case 6:
      return { text: '', contentType: 'application/json' };
    case 7:
    case 8:
      return json(valid);
    default:
      return json(mutate(valid, rng));
  }
}

const ADMIN_IDS = (world: World) => [world.c.appId, 'zz', 'A'.repeat(300), '%00', '%ZZ', '%F0%9F%98%80', '..', '%2F', 'x%20y', '%ED%A0%80', '0'.repeat(63)];

/** Path parameters: real ids of C (management) or of A and B (elsewhere), and ids nothing can have. */
export function pathOf(operation: Operation, rng: Prng, world: World, crossApp: boolean): string {
  const management = operation.path.startsWith('/admin') || operation.path.startsWith('/v3/admin');
  return operation.path.replace(/\{(\w+)\}/g, (_m, name: string) => {
    if (crossApp && !management) return name === 'appId' ? world.b.appId : keyIdOf(world.b.apiKey);
    if (name === 'webhookId') return rng.pick([webhookIdsOf(world.a.appId).endpointId, webhookIdsOf(world.b.appId).endpointId, `ep_${'0'.repeat(24)}`, '%00', 'x'.repeat(300)]);
    if (name === 'deliveryId') return rng.pick([webhookIdsOf(world.a.appId).deliveryId, webhookIdsOf(world.b.appId).deliveryId, `msg_${'0'.repeat(36)}`, '%00']);
    if (name === 'keyId') return rng.pick([...world.cKeyIds, 'zzzz', '%00', 'x'.repeat(500), keyIdOf(world.a.apiKey)]);
    // The management API may change any app it is asked to; the bystander B is only ever named elsewhere.
    const ids = management ? ADMIN_IDS(world) : [...ADMIN_IDS(world), world.a.appId, world.b.appId];
    return rng.pick(ids);
  });
}

const RAW_QUERY_VALUES = ['', '%00', '%ZZ', '%FF%FE', '%ED%A0%80', 'a%26b%3Dc', 'x'.repeat(3000), '1e309', '-1', '0', '2147483648', 'true', '%F0%9F%98%80'];

export function queryOf(operation: Operation, rng: Prng, world: World, crossApp: boolean): string {
  const parts: string[] = [];
  for (const parameter of operation.parameters.filter((p) => p.in === 'query')) {
    const bystander = crossApp ? bystanderValue(parameter.name, rng, world) : undefined;
    if (bystander !== undefined) {
      parts.push(`${parameter.name}=${encodeURIComponent(String(bystander))}`);
      continue;
    }
    if (!parameter.required && rng.chance(0.3)) continue;
    const name = rng.chance(0.8) ? parameter.name : parameter.name.toUpperCase();
    const known = knownValue(parameter.name, rng, world);
    const value = known !== undefined && rng.chance(0.5) ? encodeURIComponent(String(known)) : rng.pick(RAW_QUERY_VALUES);
    parts.push(`${name}=${value}`);
    if (rng.chance(0.15)) parts.push(`${name}=${rng.pick(RAW_QUERY_VALUES)}`); // repeated: an array
  }
  if (rng.chance(0.3)) parts.push(rng.pick(['a[b]=c', 'extra=1', '=', '&&', '%ZZ=1', '__proto__[x]=1', 'pageNumber=1&pageNumber=2']));
  return parts.length === 0 ? '' : `?${parts.join('&')}`;
}

/** The key headers: mostly A's right key (to get past authentication), else every way of getting it wrong. */
export function headersOf(operation: Operation, rng: Prng, world: World, crossApp: boolean): Record<string, string> {
  const headers: Record<string, string> = {};
  const scheme = Object.keys(operation.security[0] ?? {})[0];
  const right = scheme === 'ApiKey' ? world.a.apiKey : scheme === 'ApiSecret' ? world.a.apiSecret : scheme === 'ManagementKey' ? MANAGEMENT_KEY : undefined;
  if (right && (crossApp || rng.chance(0.75))) headers[scheme] = right;
  else if (scheme) {
    headers[rng.chance(0.8) ? scheme : rng.pick(['ApiKey', 'ApiSecret', 'ManagementKey'])] = rng.pick([
      right!.slice(0, rng.int(0, right!.length - 1)),
      `${right}x`,
      scheme === 'ApiKey' ? world.a.apiSecret : world.a.apiKey,
      `${world.a.appId}:secret:${'0'.repeat(32)}`,
      `${world.c.appId}:public:${'f'.repeat(32)}`,
      rng.pick(world.tokens),
      ' ',
      'k'.repeat(8000),
      '\u00ff\u00fe latin1',
      `${right} , ${right}`,
    ]);
  }
  if (rng.chance(0.3)) headers['X-Request-Id'] = rng.pick(['', 'a'.repeat(200), '../x', 'ok-id']);
  if (rng.chance(0.2)) headers['User-Agent'] = rng.pick(['', 'u'.repeat(5000), '\u00e9t\u00e9']);
  if (rng.chance(0.2)) headers['CF-IPCountry'] = rng.pick(['XX', 'ZZZZ', '']);
  if (rng.chance(0.2)) headers['X-Forwarded-For'] = rng.pick(['1.2.3.4, ::1', 'not an ip', '']);
  if (rng.chance(0.1)) headers.Accept = rng.pick(['text/html', 'application/xml', '*/*;q=0']);
  return headers;
}

/** For the two ceremony completions: a real ceremony of A, begun fresh, finished with damaged bytes. */
export async function ceremonyBody(svc: TestService, operation: Operation, rng: Prng, world: World): Promise<Body | undefined> {
  const base = operation.path.startsWith('/v3') ? '/v3' : '';
  if (operation.path.endsWith('/register/complete')) {
    const token = (await svc.http.post(`${base}/register/token`).set('ApiSecret', world.a.apiSecret).send({ userId: world.aUserId, username: 'fuzz' })).body;
    const registerToken = typeof token === 'string' ? token : token.token;
    const begin = await svc.http.post('/register/begin').set('ApiKey', world.a.apiKey).send({ token: registerToken, RPID, Origin: ORIGIN });
    if (begin.status !== 200) return undefined;
    // Sometimes B's credential id: A may register it for itself, but B's passkey must stay B's.
    const credentialId = rng.chance(0.3) ? Buffer.from(world.bCredentialId, 'base64url') : undefined;
    const { response } = createCredential({ challenge: begin.body.data.challenge, rpId: RPID, origin: ORIGIN, userHandle: begin.body.data.user.id, credentialId });
    const inner = response.response as Record<string, string>;
    if (rng.chance(0.8)) inner.AttestationObject = b64url(badCbor(rng, Buffer.from(inner.AttestationObject, 'base64url')));
    return json({ session: begin.body.session, response, RPID, Origin: ORIGIN });
  }
  if (operation.path.endsWith('/signin/complete')) {
    const begin = await svc.http.post('/signin/begin').set('ApiKey', world.a.apiKey).send({ userId: world.aUserId, RPID, Origin: ORIGIN });
    if (begin.status !== 200) return undefined;
    const assertion = getAssertion(world.aCredential, { challenge: begin.body.data.challenge, rpId: RPID, origin: ORIGIN });
    const inner = assertion.response as Record<string, string>;
    switch (rng.int(0, 3)) {
      case 0:
        assertion.id = assertion.rawId = world.bCredentialId;
        break;
      case 1:
        inner.userHandle = b64url(Buffer.from(world.bUserId));
        break;
      default:
        inner.authenticatorData = b64url(badAuthenticatorData(rng, Buffer.from(inner.authenticatorData, 'base64url')));
    }
    return json({ session: begin.body.session, response: assertion, RPID, Origin: ORIGIN });
  }
  return undefined;
}

