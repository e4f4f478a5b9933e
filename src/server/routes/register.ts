import { Router } from 'express';
import { authOf, requireKey } from '../http/authenticate';
import { parseWith } from '../http/validation';
import { registerBeginSchema, registerCompleteSchema, registerTokenSchema } from '../services/registration';
import type { Services } from '../services';
import { clientContextOf } from '../webauthn/requestContext';

export function registerRoutes(services: Services): Router {
  const router = Router();
  const { registration, keys } = services;

  router.post('/register/token', requireKey(keys, 'ApiSecret', 'token_register'), async (req, res) => {
    const input = parseWith(registerTokenSchema, req.body);
    res.json({ token: await registration.createToken(authOf(res).appId, input) });
  });

  router.post('/register/begin', requireKey(keys, 'ApiKey', 'register'), async (req, res) => {
    res.json(await registration.begin(authOf(res).appId, parseWith(registerBeginSchema, req.body)));
  });

  router.post('/register/complete', requireKey(keys, 'ApiKey', 'register'), async (req, res) => {
    const input = parseWith(registerCompleteSchema, req.body);
    res.json({ token: await registration.complete(authOf(res).appId, input, clientContextOf(req)) });
  });
  return router;
}
