import { Router } from 'express';
import { authOf, requireKey } from '../../http/authenticate';
import { listBody } from '../../http/lists';
import { parseWith } from '../../http/validation';
import { deleteCredentialSchema, userIdSchema } from '../../services/credentials';
import type { Services } from '../../services';

/**
 * The older generation's credentials: the list is POST only (a GET is a 405, see ./index.ts) and
 * each credential also carries `credType` (its attestation format, `none` for most passkeys);
 * delete takes `CredentialId` in any case, as today, and answers 200.
 */
export function legacyCredentialRoutes(services: Services): Router {
  const router = Router();
  const secret = requireKey(services.keys, 'ApiSecret');

  router.post('/credentials/list', secret, async (req, res) => {
    const { userId } = parseWith(userIdSchema, req.body);
    const { appId } = authOf(res);
    const credentials = (await services.credentials.list(appId, userId)).map((c) => ({ ...c, credType: c.attestationFmt }));
    res.json(await listBody(services, appId, credentials));
  });

  router.post('/credentials/delete', secret, async (req, res) => {
    const { credentialId } = parseWith(deleteCredentialSchema, req.body);
    await services.credentials.delete(authOf(res).appId, credentialId);
    res.status(200).end();
  });
  return router;
}
