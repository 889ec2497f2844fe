/** A refusal the operator can act on: printed as is, exit code 1 (2 for usage errors). */
export class CommandError extends Error {
  constructor(
    message: string,
    readonly exitCode: 1 | 2 = 1,
  ) {
    super(message);
  }
}
