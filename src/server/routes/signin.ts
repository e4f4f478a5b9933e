import { Router } from 'express';
import { authOf, requireKey } from '../http/authenticate';
import { parseWith } from '../http/validation';
import { signinBeginSchema, signinCompleteSchema } from '../services/signin';
import { generateTokenSchema, verifyTokenSchema } from '../services/verification';
import type { Services } from '../services';
import { clientContextOf } from '../webauthn/requestContext';

export function signinRoutes(services: Services): Router {
  const router = Router();
  const { signin, verification, keys } = services;

  router.post('/signin/begin', requireKey(keys, 'ApiKey', 'login'), async (req, res) => {
    res.json(await signin.begin(authOf(res).appId, parseWith(signinBeginSchema, req.body)));
  });

  router.post('/signin/complete', requireKey(keys, 'ApiKey', 'login'), async (req, res) => {
    const input = parseWith(signinCompleteSchema, req.body);
    res.json({ token: await signin.complete(authOf(res).appId, input, clientContextOf(req)) });
  });

  router.post('/signin/verify', requireKey(keys, 'ApiSecret', 'token_verify'), async (req, res) => {
    res.json(await verification.verify(authOf(res).appId, parseWith(verifyTokenSchema, req.body)));
  });

  router.post('/signin/generate-token', requireKey(keys, 'ApiSecret', 'token_verify'), async (req, res) => {
    res.json({ token: await verification.generate(authOf(res).appId, parseWith(generateTokenSchema, req.body)) });
  });
  return router;
}
