-- OAuth 2.1 on /mcp (src/accounts/oauth/, src/api/oauth/): the clients hosts register, the codes and refresh tokens issued to them (SHA-256
-- only), the secret access tokens are signed with, and the key each grant is: a sub-key of the key that consented,
-- with the policy chosen on the consent screen, listed and revoked as any key.
-- A client registered dynamically (a generated id), or known by its metadata document (its id is the document's URL,
-- read again when older than an hour).
CREATE TABLE "oauth_clients" (
    "id" TEXT NOT NULL,
    "metadata" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "fetched_at" TIMESTAMPTZ(3),

    CONSTRAINT "oauth_clients_pkey" PRIMARY KEY ("id")
);

CREATE TABLE "oauth_codes" (
    "code_hash" TEXT NOT NULL,
    "client_id" TEXT NOT NULL,
    "api_key_id" TEXT NOT NULL,
    "redirect_uri" TEXT NOT NULL,
    "code_challenge" TEXT NOT NULL,
    "resource" TEXT NOT NULL,
    "scopes" TEXT[] NOT NULL DEFAULT ARRAY[]::TEXT[],
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "used_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "oauth_codes_pkey" PRIMARY KEY ("code_hash")
);

CREATE TABLE "oauth_refresh_tokens" (
    "token_hash" TEXT NOT NULL,
    "client_id" TEXT NOT NULL,
    "api_key_id" TEXT NOT NULL,
    "resource" TEXT NOT NULL,
    "scopes" TEXT[] NOT NULL DEFAULT ARRAY[]::TEXT[],
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "used_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "oauth_refresh_tokens_pkey" PRIMARY KEY ("token_hash")
);

-- One row: the HMAC secret of access tokens and authorization requests, made by the first process that needs it.
CREATE TABLE "oauth_secrets" (
    "id" TEXT NOT NULL,
    "secret" BYTEA NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "oauth_secrets_pkey" PRIMARY KEY ("id")
);

ALTER TABLE "api_keys" ADD COLUMN "oauth_client_id" TEXT;

CREATE INDEX "oauth_codes_api_key_id_idx" ON "oauth_codes"("api_key_id");
CREATE INDEX "oauth_refresh_tokens_api_key_id_idx" ON "oauth_refresh_tokens"("api_key_id");

ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_oauth_client_id_fkey" FOREIGN KEY ("oauth_client_id") REFERENCES "oauth_clients"("id") ON DELETE SET NULL ON UPDATE CASCADE;
ALTER TABLE "oauth_codes" ADD CONSTRAINT "oauth_codes_client_id_fkey" FOREIGN KEY ("client_id") REFERENCES "oauth_clients"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "oauth_codes" ADD CONSTRAINT "oauth_codes_api_key_id_fkey" FOREIGN KEY ("api_key_id") REFERENCES "api_keys"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "oauth_refresh_tokens" ADD CONSTRAINT "oauth_refresh_tokens_client_id_fkey" FOREIGN KEY ("client_id") REFERENCES "oauth_clients"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "oauth_refresh_tokens" ADD CONSTRAINT "oauth_refresh_tokens_api_key_id_fkey" FOREIGN KEY ("api_key_id") REFERENCES "api_keys"("id") ON DELETE CASCADE ON UPDATE CASCADE;
