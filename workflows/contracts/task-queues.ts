// Provider calls run on a task queue per provider, beside the main queue (workflows and database steps), so each
// provider's concurrency is sized on its own. Pure: the workflow bundle imports it, and so does the worker.
export const providerTaskQueue = (mainTaskQueue: string, provider: string) => `${mainTaskQueue}-${provider}`;

/** The provider part of a catalog model id (`<provider>/<slug>`). */
export const providerSlugOf = (modelId: string) => modelId.slice(0, modelId.indexOf('/'));
