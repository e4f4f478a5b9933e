-- Key scopes on every private route. A secret key that had both of the scopes there were
-- (token_register and token_verify: every key an app was created with) could call every route;
-- it keeps that access through the new scopes. A secret key with only one of them now has only
-- that one (before, it could also call every route the two did not name).
UPDATE "ApiKey"
SET "scopes" = 'token_register,token_verify,users,credentials,aliases,auth_configs,magic_links,events,features,account_delete'
WHERE "kind" = 'secret'
  AND (',' || "scopes" || ',') LIKE '%,token\_register,%' ESCAPE '\'
  AND (',' || "scopes" || ',') LIKE '%,token\_verify,%' ESCAPE '\';
