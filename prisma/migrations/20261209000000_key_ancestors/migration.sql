-- A key's makers, nearest first (parent_id, its parent_id, …): admission reads a key's chain by index, without a
-- recursive query. Written once, when the key is made (a key's parent never changes).
ALTER TABLE "api_keys" ADD COLUMN "ancestor_ids" TEXT[] DEFAULT ARRAY[]::TEXT[];

WITH RECURSIVE up AS (
    SELECT id AS key_id, parent_id AS ancestor, 1 AS depth FROM api_keys WHERE parent_id IS NOT NULL
    UNION ALL
    SELECT up.key_id, k.parent_id, up.depth + 1 FROM up JOIN api_keys k ON k.id = up.ancestor
    WHERE k.parent_id IS NOT NULL AND up.depth < 32
)
UPDATE "api_keys" SET "ancestor_ids" = chains.ids
FROM (SELECT key_id, array_agg(ancestor ORDER BY depth) AS ids FROM up GROUP BY key_id) AS chains
WHERE "api_keys"."id" = chains.key_id;
