-- Which provider route ran a completed task: the model's own provider, or a fallback route that took over.
ALTER TABLE "tasks" ADD COLUMN "served_by" TEXT;
