-- Webhooks: each app's endpoints, the outbox of deliveries (written in the transaction of the
-- change each reports) and the log of attempts.
CREATE TABLE "WebhookEndpoint" (
    "id" TEXT NOT NULL,
    "tenant" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "eventTypes" TEXT NOT NULL DEFAULT '[]',
    "description" TEXT NOT NULL DEFAULT '',
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "secret" TEXT NOT NULL,
    "previousSecret" TEXT,
    "previousSecretExpiresAt" TIMESTAMP(3),
    "disabledReason" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "WebhookEndpoint_pkey" PRIMARY KEY ("id")
);

CREATE TABLE "WebhookDelivery" (
    "id" TEXT NOT NULL,
    "tenant" TEXT NOT NULL,
    "endpointId" TEXT NOT NULL,
    "eventType" TEXT NOT NULL,
    "payload" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "state" TEXT NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "nextAttemptAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastStatus" INTEGER,
    "lastError" TEXT,
    "leaseUntil" TIMESTAMP(3),
    "claimedBy" TEXT,

    CONSTRAINT "WebhookDelivery_pkey" PRIMARY KEY ("id")
);

CREATE TABLE "WebhookAttempt" (
    "id" TEXT NOT NULL,
    "tenant" TEXT NOT NULL,
    "deliveryId" TEXT NOT NULL,
    "at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "status" INTEGER,
    "error" TEXT,
    "durationMs" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "WebhookAttempt_pkey" PRIMARY KEY ("id")
);

CREATE INDEX "WebhookEndpoint_tenant_createdAt_idx" ON "WebhookEndpoint"("tenant", "createdAt");
CREATE INDEX "WebhookDelivery_state_nextAttemptAt_idx" ON "WebhookDelivery"("state", "nextAttemptAt");
CREATE INDEX "WebhookDelivery_endpointId_state_createdAt_idx" ON "WebhookDelivery"("endpointId", "state", "createdAt");
CREATE INDEX "WebhookDelivery_tenant_endpointId_createdAt_idx" ON "WebhookDelivery"("tenant", "endpointId", "createdAt");
CREATE INDEX "WebhookAttempt_deliveryId_at_idx" ON "WebhookAttempt"("deliveryId", "at");
CREATE INDEX "WebhookAttempt_at_idx" ON "WebhookAttempt"("at");

ALTER TABLE "WebhookEndpoint" ADD CONSTRAINT "WebhookEndpoint_tenant_fkey" FOREIGN KEY ("tenant") REFERENCES "App"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "WebhookDelivery" ADD CONSTRAINT "WebhookDelivery_tenant_fkey" FOREIGN KEY ("tenant") REFERENCES "App"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "WebhookAttempt" ADD CONSTRAINT "WebhookAttempt_tenant_fkey" FOREIGN KEY ("tenant") REFERENCES "App"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "WebhookAttempt" ADD CONSTRAINT "WebhookAttempt_deliveryId_fkey" FOREIGN KEY ("deliveryId") REFERENCES "WebhookDelivery"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- The new key scope: a secret key that had every scope there was keeps access to every route.
UPDATE "ApiKey"
SET "scopes" = "scopes" || ',webhooks'
WHERE "kind" = 'secret'
  AND (',' || "scopes" || ',') LIKE '%,token\_register,%' ESCAPE '\'
  AND (',' || "scopes" || ',') LIKE '%,token\_verify,%' ESCAPE '\'
  AND (',' || "scopes" || ',') LIKE '%,users,%'
  AND (',' || "scopes" || ',') LIKE '%,credentials,%'
  AND (',' || "scopes" || ',') LIKE '%,aliases,%'
  AND (',' || "scopes" || ',') LIKE '%,auth\_configs,%' ESCAPE '\'
  AND (',' || "scopes" || ',') LIKE '%,magic\_links,%' ESCAPE '\'
  AND (',' || "scopes" || ',') LIKE '%,events,%'
  AND (',' || "scopes" || ',') LIKE '%,features,%'
  AND (',' || "scopes" || ',') LIKE '%,account\_delete,%' ESCAPE '\';

