-- The task reconciler looks up x402 top-ups left unsettled (`authorized` or `settling`) past its bound, every run.
CREATE INDEX "x402_topups_status_created_at_idx" ON "x402_topups"("status", "created_at");
