// Money is integer micro-USD (1e-6 USD = 1 USDC base unit) as bigint everywhere inside. Strings and numbers
// exist only at the API edge, made here.

export const microsPerUsd = 1_000_000n;

const decimalUsd = /^(\d{1,12})(?:\.(\d{1,6}))?$/;

/** "12.5" → 12_500_000n. Refuses signs, exponents and more than six decimals rather than rounding. */
export function parseUsd(text: string): bigint {
  const match = decimalUsd.exec(text.trim());
  if (!match) throw new RangeError(`"${text}" is not an amount in USD with at most six decimals`);
  const [, whole, fraction = ''] = match;
  return BigInt(whole!) * microsPerUsd + BigInt(fraction.padEnd(6, '0'));
}

/** 1_000_000n → "1.00", 35_000n → "0.035", 12_500_000n → "12.50": at least two decimals, no trailing noise. */
export function formatUsd(micros: bigint): string {
  const sign = micros < 0n ? '-' : '';
  const magnitude = micros < 0n ? -micros : micros;
  const whole = magnitude / microsPerUsd;
  const fraction = (magnitude % microsPerUsd).toString().padStart(6, '0').replace(/0+$/, '').padEnd(2, '0');
  return `${sign}${whole}.${fraction}`;
}

/** For the spec's numeric `cost` fields: exact for any amount below 2^53 micro-USD (about 9 billion USD). */
export function usdNumber(micros: bigint): number {
  return Number(formatUsd(micros));
}
