-- signin/generate-token gets a scope of its own, token_generate (it took token_verify before, so a
-- verify-only secret could mint a sign-in for any user). Every secret key that holds token_verify
-- keeps what it had: it gets token_generate too. A key with exactly the reference's two scopes
-- (token_register and token_verify) is left as it is: it has every scope of its kind anyway
-- (src/server/core/effectiveScopes.ts), and adding one would take that away.
UPDATE "ApiKey"
SET "scopes" = "scopes" || ',token_generate'
WHERE "kind" = 'secret'
  AND (',' || "scopes" || ',') LIKE '%,token\_verify,%' ESCAPE '\'
  AND (',' || "scopes" || ',') NOT LIKE '%,token\_generate,%' ESCAPE '\'
  AND "scopes" NOT IN ('token_register,token_verify', 'token_verify,token_register');
