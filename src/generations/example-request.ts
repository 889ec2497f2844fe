// The example request of a model: what discovery documents show a payer, and what a paymentless probe with no valid
// body is priced as (src/api/discovery/payment-probe.ts).
export const exampleGeneration = (example: { type: string; model: string }) => ({
  ...example,
  prompt: 'A lighthouse at dawn',
});
