-- OAuth, hardened (issue 55): the token secret leaves the database for configuration (OAUTH_TOKEN_SECRET), so reading
-- a table mints no token; each authorization request is answered once; and the sweep finds expired codes and refresh
-- tokens by their expiry.
DROP TABLE "oauth_secrets";

CREATE TABLE "oauth_answered_requests" (
    "id" TEXT NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "answered_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "oauth_answered_requests_pkey" PRIMARY KEY ("id")
);

CREATE INDEX "oauth_answered_requests_expires_at_idx" ON "oauth_answered_requests"("expires_at");
CREATE INDEX "oauth_codes_expires_at_idx" ON "oauth_codes"("expires_at");
CREATE INDEX "oauth_refresh_tokens_expires_at_idx" ON "oauth_refresh_tokens"("expires_at");
