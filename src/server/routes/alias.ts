import { Router } from 'express';
import { z } from 'zod';
import { authOf, requireKey } from '../http/authenticate';
import { listBody } from '../http/lists';
import { ciObject, customerUserId, looseBoolean, parseWith } from '../http/validation';
import { aliasListSchema } from '../services/aliases';
import type { Services } from '../services';

const setAliasesSchema = ciObject({
  userId: customerUserId(),
  aliases: aliasListSchema,
  hashing: z.preprocess((v) => (v === null ? undefined : v), looseBoolean().optional()),
});

// Query parameter names are as case-insensitive as body properties (the SDKs send `userid`).
const userIdQuerySchema = ciObject({ userId: z.string().min(1, 'is required') });

export function aliasRoutes(services: Services): Router {
  const router = Router();
  const secret = requireKey(services.keys, 'ApiSecret');

  router.post('/alias', secret, async (req, res) => {
    const input = parseWith(setAliasesSchema, req.body);
    await services.aliases.replace(authOf(res).appId, input.userId, input.aliases, input.hashing ?? true);
    res.status(204).end();
  });

  router.get('/alias/list', secret, async (req, res) => {
    const { userId } = parseWith(userIdQuerySchema, req.query);
    const appId = authOf(res).appId;
    res.json(await listBody(services, appId, await services.aliases.list(appId, userId)));
  });
  return router;
}

export { userIdQuerySchema };
