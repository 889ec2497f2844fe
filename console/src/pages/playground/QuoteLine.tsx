// The quote for the request as it stands (POST /agents/quote), shown before Generate: its cost, whether the balance
// covers it, and whether the calling key's policy would admit it.
import { keepPreviousData } from '@tanstack/react-query';
import type { components } from '../../api/schema';
import { useSession } from '../../api/session';
import { formatUsd } from '../../format';
import { ErrorLine } from '../../ui/ErrorLine';

type QuoteRequest = components['schemas']['AgentQuoteRequest'];
export type Quote = components['schemas']['AgentQuoteResponse'];

export function useQuote(request: QuoteRequest) {
  return useSession().api.useQuery(
    'post',
    '/agents/quote',
    { body: request },
    { placeholderData: keepPreviousData, staleTime: 10_000 },
  );
}

/** Why Generate would be refused now, or undefined. */
export function quoteRefusal(quote: Quote | undefined): string | undefined {
  if (!quote) return undefined;
  if (quote.key_refusal) return quote.key_refusal.message;
  if (!quote.can_afford) return `The balance is ${formatUsd(quote.shortfall ?? 0)} short.`;
  return undefined;
}

export function QuoteLine({ quote, error }: { quote: Quote | undefined; error: unknown }) {
  const refusal = quoteRefusal(quote);
  return (
    <div className="quote">
      <ErrorLine error={error} />
      <p role="status">
        {quote && (
          <>
            <span className="muted">Cost </span>
            <strong className="quote-cost">{formatUsd(quote.cost_usd)}</strong>
            <span className="muted"> · balance available {formatUsd(quote.your_balance)}</span>
          </>
        )}
      </p>
      <ErrorLine error={refusal} />
    </div>
  );
}
