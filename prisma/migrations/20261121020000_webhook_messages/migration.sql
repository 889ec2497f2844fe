-- Webhook messages: the event and the exact body that every attempt to every target sends. Deliveries (one row
-- per attempt, already in place) now point at their message.

-- CreateTable
CREATE TABLE "webhook_messages" (
    "id" TEXT NOT NULL,
    "account_id" TEXT,
    "task_id" TEXT,
    "event" TEXT NOT NULL,
    "body" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "webhook_messages_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "webhook_messages_account_id_created_at_idx" ON "webhook_messages"("account_id", "created_at");

-- CreateIndex
CREATE INDEX "webhook_messages_task_id_idx" ON "webhook_messages"("task_id");

-- AddForeignKey
ALTER TABLE "webhook_messages" ADD CONSTRAINT "webhook_messages_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_message_id_fkey" FOREIGN KEY ("message_id") REFERENCES "webhook_messages"("id") ON DELETE CASCADE ON UPDATE CASCADE;
