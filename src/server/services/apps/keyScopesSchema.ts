import { z } from 'zod';
import { ciObject } from '../../core/validation';
import { PUBLIC_SCOPES, SECRET_SCOPES, type KeyKind, type Scope } from './apiKeys';

// The reference sends key scopes as enum integers (Register=0, Login=1 / TokenRegister=0, TokenVerify=1).
const buildScopesSchema = (kind: KeyKind) => {
  const names: readonly Scope[] = kind === 'public' ? PUBLIC_SCOPES : SECRET_SCOPES;
  return ciObject({
    scopes: z
      .array(z.union([z.number().int(), z.string()]))
      .optional()
      .describe(`${names.join(', ')} (or their indexes ${names.map((n, i) => `${i}=${n}`).join(', ')})`)
      .transform((values) => (values ?? []).map((v) => (typeof v === 'number' ? (names[v] ?? String(v)) : v.toLowerCase())) as Scope[]),
  });
};
// Built once, not per request.
const SCOPES_SCHEMAS = { public: buildScopesSchema('public'), secret: buildScopesSchema('secret') };

/** The body of creating a key of `kind` (management API, console): its scopes, by name or by the reference's index. */
export const keyScopesSchema = (kind: KeyKind) => SCOPES_SCHEMAS[kind];
