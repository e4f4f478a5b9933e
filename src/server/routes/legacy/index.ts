import { Router } from 'express';
import { methodNotAllowed } from '../../http/routing/methodNotAllowed';
import type { Services } from '../../services';
import { legacyAccountRoutes } from './account';
import { legacyCredentialRoutes } from './credentials';
import { legacyRegisterRoutes } from './register';
import { legacySigninRoutes } from './signin';

/**
 * The older API generation, served at `/v3` (and `/api/v3`): the routes where it differs (the
 * spec's Versioning section), then everything else exactly as the current generation answers it,
 * through the same services. A path the older generation defines answers only its methods there,
 * so `GET /v3/credentials/list` is a 405 even though the current generation has that route.
 */
export function legacyApi(services: Services, current: Router): Router {
  const differences = Router();
  differences.use(legacyRegisterRoutes(services));
  differences.use(legacySigninRoutes(services));
  differences.use(legacyCredentialRoutes(services));
  differences.use(legacyAccountRoutes(services));

  const v3 = Router();
  v3.use(differences);
  v3.use(methodNotAllowed(differences));
  v3.use(current);
  v3.use(methodNotAllowed(current));
  return v3;
}
