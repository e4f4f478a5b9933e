import { Router } from 'express';
import { authOf, requireKey } from '../../http/authenticate';
import { parseWith } from '../../http/validation';
import { verifyTokenSchema } from '../../services/verification';
import type { verificationResult } from '../../services/verifyTokens';
import type { Services } from '../../services';

/** The older generation's verification result: `username` where the current one has `userId`, and no `tokenId` or `type`. */
export function legacyVerificationResult(result: ReturnType<typeof verificationResult>) {
  const { success, userId, tokenId: _tokenId, type: _type, ...rest } = result;
  return { success, username: userId, ...rest };
}

export function legacySigninRoutes(services: Services): Router {
  const router = Router();
  router.post('/signin/verify', requireKey(services.keys, 'ApiSecret', 'token_verify'), async (req, res) => {
    const result = await services.verification.verify(authOf(res).appId, parseWith(verifyTokenSchema, req.body));
    res.json(legacyVerificationResult(result));
  });
  return router;
}
