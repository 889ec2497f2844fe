// How amounts and times read in the console: USD with enough digits for sub-cent prices, local times.
const usd = new Intl.NumberFormat('en-US', {
  style: 'currency',
  currency: 'USD',
  minimumFractionDigits: 2,
  maximumFractionDigits: 6,
});

/** "$5.00", "$4.999994", "$0.000006": prices here go down to micro-dollars. */
export const formatUsd = (amount: string | number): string => usd.format(Number(amount));

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

export const formatTime = (iso: string | undefined): string => (iso ? dateTime.format(new Date(iso)) : '');

const moment = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });

/** With seconds: a task's steps are seconds apart. */
export const formatMoment = (iso: string): string => moment.format(new Date(iso));
