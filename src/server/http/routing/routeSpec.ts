import type { z } from 'zod';
import type { Scope } from '../../core/keyScopes';

/** The header a route is authenticated by; none for health, the document and the signed abort link. */
export type RouteAuth = 'ApiKey' | 'ApiSecret' | 'ManagementKey';

/** `all` answers any method (documented as GET). */
export type RouteMethod = 'get' | 'post' | 'delete' | 'all';

export interface RouteResponse {
  description: string;
  /** The JSON body's shape (documentation: the handlers build it). */
  schema?: z.ZodType;
  /** When the answer is not JSON (the abort link's page, the plain health check). */
  contentType?: string;
}

/**
 * One endpoint, declared once: `mountRoute` mounts it (authentication, then params, query and body
 * parsed with these schemas) and the OpenAPI document is generated from the same declaration.
 */
export interface RouteSpec<P extends z.ZodType | undefined = z.ZodType | undefined, Q extends z.ZodType | undefined = z.ZodType | undefined, B extends z.ZodType | undefined = z.ZodType | undefined> {
  method: RouteMethod;
  /** Express syntax (`/admin/apps/:appId`), relative to the generation's base (`/`, `/api`, `/v3`, `/api/v3`). */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tag: string;
  auth?: RouteAuth;
  scope?: Scope;
  params?: P;
  query?: Q;
  body?: B;
  /** Success answers by status; every route also answers problems (added by the document). */
  responses: Record<number, RouteResponse>;
}

/** Keeps the literal schema types, so `mountRoute` hands the handler typed input. */
export function defineRoute<P extends z.ZodType | undefined = undefined, Q extends z.ZodType | undefined = undefined, B extends z.ZodType | undefined = undefined>(
  spec: RouteSpec<P, Q, B>,
): RouteSpec<P, Q, B> {
  return spec;
}
