-- The W3C traceparent of the span whose change queued a delivery, when the service traced it:
-- the delivery's own span links to it. NULL when tracing was off.
ALTER TABLE "WebhookDelivery" ADD COLUMN "traceContext" TEXT;
