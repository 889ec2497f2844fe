// What each endpoint does, as the OpenAPI document and the API reference tell callers, by operation id.
/** Spec §9: the alias is deprecated with a 60-day compatibility window. */
export const predictionsSunset = 'Wed, 29 Jul 2026 10:24:55 GMT';

export const endpointDescriptions = {
  listModels:
    'Every model of the catalog in a stable order, filtered by generation `type` and by `provider` (name or slug, case-insensitive). `total` counts the models returned. `cost` and `dollar_cost` are both the USD band a request can cost. Models whose provider this server has not configured are listed with `available: false`.',
  registerAgent:
    'Creates an agent account and its `rf_` API key (shown once), with its own deposit address per enabled chain and, within per-address limits, a trial credit (`trial_credit_applied`, `starting_balance`). Too many registrations from one client address within the window answer 429 `registration_capped`. With `webhook_url`, the response carries the `webhook_secret` that signs deliveries (Standard Webhooks).',
  creditDeposit:
    "Credits the USDC sent by `tx_hash` on `chain` to the calling agent's deposit address, once the transaction has the chain's confirmation depth: only `Transfer` logs of the configured USDC contract count, and a hash is credited once, to one account, ever. Waits a few seconds for the credit: credited → `success: true` with `amount_credited` and `new_balance`; still confirming (or not mined yet) → `success: false` and a `message` (the credit then follows on its own, and the deposit is listed as pending in GET /agents/balance). Claiming a credited hash again answers the same. Refusals are 400: `deposit_not_found`, `deposit_reverted`, `deposit_wrong_token`, `deposit_wrong_recipient`, `deposit_already_credited`.",
  getAgentBalance:
    '`balance` is what the agent can spend now, in USD: deposits and credits, minus charges, minus what running tasks hold reserved. `usage` counts charged generations and their total from the ledger.',
  quoteGeneration:
    'Prices a request with the same function that admission uses, and says whether the available balance covers it. Agent and developer keys (a developer gets an empty `deposit_addresses` and `asset` "USD"). `model` must serve `type`, and `resolution`, `duration`, `num_outputs`, `sound` and `generate_type` must be options of the model (400 naming the field). Without the prompt, text-priced models assume a typical length and say so in `breakdown`.',
  updateAgentWebhook:
    'Sets the webhook URL and rotates its signing secret: deliveries are signed with the new secret from now on. A URL that is not http(s) answers 400 `invalid_webhook_url`.',
  getDeveloperBalance:
    'Developer keys (`sk_`, legacy `vega_`) only; an agent key answers 403. Amounts in USD: `balance_available` = `balance` − `balance_reserved` (held by running tasks); `total_spent` sums charged generations. `api_key` describes the key used.',
  getWebhookSecret:
    "Gateway extension (not in interface 1.1.0). Every webhook sent for your account, to a generation's `webhook_url` and to an agent's own webhook, is signed with this secret (Standard Webhooks: headers `webhook-id`, `webhook-timestamp`, `webhook-signature`). It is created at the first call or the first delivery, whichever comes first. Developer and agent keys; agents also receive it from registration with a webhook and from `PATCH /agents/webhook`, which rotates it.",
  createGeneration:
    'Validates and prices the request (the same price as POST /agents/quote), reserves that cost, and answers 202 with the task id and `poll_url` once the reservation and the task are durable. Both layouts are accepted: the top-level fields, or `{ model, input: { … }, webhook }`. For text-to-text without `prompt`, system `messages` become `system_prompt` and the others a "User: … / Assistant: …" transcript. An `Idempotency-Key` header makes retries return the same task (a different body with the same key is 409 `idempotency_key_reused`); such a retry answers the original admission (`status: queued`), so poll `poll_url` for the current state. 402 `insufficient_balance` carries `cost` and `balance_available` and reserves nothing. Without an API key, when x402 is on (`supports_x402`): 402 `payment_required` with the x402 `requirements` (and the `PAYMENT-REQUIRED` header); a valid payment (`PAYMENT-SIGNATURE` or `X-PAYMENT`) admits the task (202 with a task-scoped `access_token`, and `webhook_secret` when a `webhook_url` was named), settles only once the outputs are stored and never for a failed task; the same payment again answers the same task, for another body 409 `conflict`; a payer over `X402_MAX_TASKS_PER_PAYER` tasks in flight gets 429 `rate_limited`.',
  getGeneration:
    "The caller's own task: live from its workflow while it runs, from the database once it has ended. Someone else's task id answers 404 exactly like an unknown one. An x402-paid task is read with its `access_token` as the bearer (that task only) and shows its `payment`; its outputs appear once the payment has settled.",
  getPredictionResult: `Deprecated alias of GET /generations/{id} with the same bodies and status codes; responses carry \`Deprecation: true\`, \`Sunset: ${predictionsSunset}\` and a \`Link\` to the successor.`,
} as const;
