-- A replay (POST /webhooks/redeliver) is a delivery of its own that keeps the webhook-id of the
-- event it replays; NULL: the delivery's own id is its webhook-id, as before.
ALTER TABLE "WebhookDelivery" ADD COLUMN "webhookId" TEXT;
