-- A counter every change of a key's scopes, policy, expiry or revocation moves, in the transaction that makes it: api
-- processes drop their cached keys when it moves, whichever code path (API, genctl, OAuth) changed the key.
CREATE TABLE "api_key_changes" (
    "id" INTEGER NOT NULL DEFAULT 1,
    "seq" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "api_key_changes_pkey" PRIMARY KEY ("id")
);

INSERT INTO "api_key_changes" ("id", "seq") VALUES (1, 0);

CREATE FUNCTION "count_api_key_change"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "api_key_changes" SET "seq" = "seq" + 1 WHERE "id" = 1;
  RETURN NULL;
END
$$;

CREATE TRIGGER "api_keys_count_change" AFTER UPDATE OF "scopes", "policy", "expires_at", "revoked_at" ON "api_keys"
    FOR EACH STATEMENT EXECUTE FUNCTION "count_api_key_change"();
