import { packageVersion } from '../core/packageVersion';
import { PROBLEM_CONTENT_TYPE } from '../../shared/problem';
import { CURRENT_ROUTES, legacyRoutes } from './catalog';
import { inputJsonSchema, outputJsonSchema, type JsonSchema } from './jsonSchema';
import { problemSchema } from './problemSchema';
import type { RouteSpec } from '../http/routing/routeSpec';
import { PUBLIC_SCOPES, REFERENCE_SCOPES, SCOPES, SECRET_SCOPES, type Scope } from '../core/keyScopes';
import type { KeyKind } from '../../shared/apiKeys';

/** The base path of the older generation, below each server. */
const LEGACY_PREFIX = '/v3';
/** Where the service answers every route (the self-hosted layout adds `/api`). */
const SERVER_BASES = ['/', '/api'] as const;

const PROBLEM_REF = { $ref: '#/components/schemas/Problem' };
const problemAnswer = (description: string) => ({ description, content: { [PROBLEM_CONTENT_TYPE]: { schema: PROBLEM_REF } } });

/** `/admin/apps/:appId` → `/admin/apps/{appId}`. */
const openApiPath = (expressPath: string): string => expressPath.replace(/:(\w+)/g, '{$1}');

function parametersOf(route: RouteSpec): object[] {
  const parameters: object[] = [];
  for (const [where, schema] of [
    ['path', route.params],
    ['query', route.query],
  ] as const) {
    if (!schema) continue;
    const json = inputJsonSchema(schema);
    for (const [name, property] of Object.entries(json.properties ?? {})) {
      parameters.push({ name, in: where, required: where === 'path' || (json.required ?? []).includes(name), schema: property });
    }
  }
  return parameters;
}

function responsesOf(route: RouteSpec): Record<string, object> {
  const responses: Record<string, object> = {};
  for (const [status, answer] of Object.entries(route.responses)) {
    const content = answer.schema
      ? { 'application/json': { schema: outputJsonSchema(answer.schema) } }
      : answer.contentType
        ? { [answer.contentType]: { schema: { type: 'string' } } }
        : undefined;
    responses[status] = content ? { description: answer.description, content } : { description: answer.description };
  }
  if ((route.params || route.query || route.body) && !responses['400']) responses['400'] = problemAnswer('The request is not valid (validation_failed names each field).');
  if (route.auth && !responses['401']) responses['401'] = problemAnswer(`The ${route.auth} header is missing, malformed, unknown or locked.`);
  if (route.scope && !responses['403']) responses['403'] = problemAnswer(`The key lacks the ${route.scope} scope.`);
  responses.default = problemAnswer('Any other failure, as application/problem+json.');
  return responses;
}

/** The older generation's copy of a current operation is `v3<OperationId>`. */
const operationIdOf = (route: RouteSpec, legacy: boolean): string =>
  legacy && !route.operationId.startsWith('v3') ? `v3${route.operationId[0].toUpperCase()}${route.operationId.slice(1)}` : route.operationId;

export interface DocumentedOperation {
  operationId: string;
  /** The older generation's copy, under `/v3`. */
  legacy: boolean;
  /** The declaration the operation is generated from (and mounted by). */
  route: RouteSpec;
}

/** Every operation of the document, current generation first. */
export function documentedOperations(): DocumentedOperation[] {
  const current = CURRENT_ROUTES.map((route) => ({ route, legacy: false }));
  const legacy = legacyRoutes().map((route) => ({ route, legacy: true }));
  return [...current, ...legacy].map(({ route, legacy }) => ({ operationId: operationIdOf(route, legacy), legacy, route }));
}

function operationOf({ operationId, route, legacy }: DocumentedOperation): object {
  const body = route.body ? inputJsonSchema(route.body) : undefined;
  return {
    operationId,
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    tags: legacy ? [`${route.tag} (v3)`] : [route.tag],
    // OpenAPI 3.1 lets an apiKey requirement name roles: the key's scope.
    security: route.auth ? [{ [route.auth]: route.scope ? [route.scope] : [] }] : [],
    ...(route.method === 'all' ? { 'x-any-method': true } : {}),
    parameters: parametersOf(route),
    ...(body ? { requestBody: { required: (body.required ?? []).length > 0, content: { 'application/json': { schema: body } } } } : {}),
    responses: responsesOf(route),
  };
}

function pathsOf(operations: readonly DocumentedOperation[]): Record<string, Record<string, object>> {
  const paths: Record<string, Record<string, object>> = {};
  for (const operation of operations) {
    const { route, legacy } = operation;
    const path = (legacy ? LEGACY_PREFIX : '') + openApiPath(route.path);
    // An any-method route (the plain health check) is documented as GET.
    const method = route.method === 'all' ? 'get' : route.method;
    (paths[path] ??= {})[method] = operationOf(operation);
  }
  return paths;
}

const DESCRIPTION = [
  'A self-hostable, Passwordless.dev-compatible passkey service.',
  'Every route answers below each server (`/` and `/api`); the older API generation is the `/v3` paths (so also `/api/v3`).',
  'Request bodies are JSON with case-insensitive property names; numbers are accepted where strings are expected; unknown fields are ignored; bodies are limited to 64 KiB.',
  'Every error is `application/problem+json` (the Problem schema) with an `errorCode` from one dictionary.',
].join('\n\n');

/** What each scope of a key kind admits; every operation names the one it needs in its `security`. */
const scopeList = (kind: KeyKind, scopes: readonly Scope[]) =>
  `Scopes (a key without scopes, or with exactly the reference service's ${REFERENCE_SCOPES[kind].map((scope) => `\`${scope}\``).join(' and ')}, has all of its kind): ${scopes
    .map((scope) => `\`${scope}\` (${SCOPES[scope].replace(/^\w+: /, '')})`)
    .join(', ')}.`;

/** The OpenAPI 3.1 document of every route of both generations. */
function buildOpenApiDocument(): Record<string, unknown> {
  const paths = pathsOf(documentedOperations());
  return {
    openapi: '3.1.1',
    info: { title: 'passwordless-selfhost', version: packageVersion(), description: DESCRIPTION, license: { name: 'MIT', identifier: 'MIT' } },
    servers: SERVER_BASES.map((url) => ({ url })),
    tags: [
      { name: 'public API', description: 'ApiKey: what the browser client calls.' },
      { name: 'private API', description: 'ApiSecret: what your backend calls.' },
      { name: 'management API', description: 'ManagementKey: apps and their keys.' },
      { name: 'health', description: 'Anonymous health checks.' },
      { name: 'account deletion', description: 'The abort link of a deletion warning.' },
      { name: 'meta', description: 'This document.' },
    ],
    paths,
    components: {
      schemas: { Problem: outputJsonSchema(problemSchema) as JsonSchema },
      securitySchemes: {
        ApiKey: { type: 'apiKey', in: 'header', name: 'ApiKey', description: `The app's public key (\`<appId>:public:<32 hex>\`). ${scopeList('public', PUBLIC_SCOPES)}` },
        ApiSecret: { type: 'apiKey', in: 'header', name: 'ApiSecret', description: `The app's secret (\`<appId>:secret:<32 hex>\`). ${scopeList('secret', SECRET_SCOPES)}` },
        ManagementKey: { type: 'apiKey', in: 'header', name: 'ManagementKey', description: 'The MANAGEMENT_KEY of the server.' },
      },
    },
  };
}

let cached: string | undefined;

/** The document as JSON text, built on first use and kept: it depends only on the code. */
export function openApiDocumentText(): string {
  cached ??= JSON.stringify(buildOpenApiDocument());
  return cached;
}
