-- What a completed task counted in its model's pricing units (tokens, seconds, images, …), as it was charged: shown on
-- the task (`usage`), and what an OpenAI-shaped chat completion reports as its usage.
ALTER TABLE "tasks" ADD COLUMN "usage" JSONB;
