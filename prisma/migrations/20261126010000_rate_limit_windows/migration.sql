-- Per-account rate limits shared by every api process: one fixed-window count per account and bucket, leased out a
-- few requests at a time by one upsert (src/services/rate-limiter.ts).
CREATE TABLE "rate_limit_windows" (
    "key" TEXT NOT NULL,
    "window_start" TIMESTAMPTZ(3) NOT NULL,
    "used" INTEGER NOT NULL,
    "last_grant" INTEGER NOT NULL,

    CONSTRAINT "rate_limit_windows_pkey" PRIMARY KEY ("key"),
    CONSTRAINT "rate_limit_windows_used_nonnegative" CHECK ("used" >= 0 AND "last_grant" >= 0)
);
