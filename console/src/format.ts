// How amounts and times read in the console: USD with enough digits for sub-cent prices, local times.
const usd = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', maximumFractionDigits: 6 });
const usdShort = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', minimumFractionDigits: 2 });

export function formatUsd(amount: string | number): string {
  const value = Number(amount);
  return Math.abs(value) >= 0.01 || value === 0 ? usdShort.format(value) : usd.format(value);
}

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

export const formatTime = (iso: string | undefined): string => (iso ? dateTime.format(new Date(iso)) : '');
