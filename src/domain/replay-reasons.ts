// Why a batch replay skips a failed task (genctl tasks replay): the summary groups skips by these sentences.
export const skipReasons = {
  x402: 'x402: the payer did not sign for a second run',
  alreadyReplayed: 'already replayed',
  cancelled: 'cancelled by its caller',
  insufficientBalance: 'insufficient balance',
  notAdmissible: 'not admissible',
  unavailable: 'admission did not answer (run the batch again)',
} as const;
export type SkipReason = (typeof skipReasons)[keyof typeof skipReasons];
