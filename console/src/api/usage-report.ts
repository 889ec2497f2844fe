// GET /usage as JSON (the report), or as the CSV file the server writes (Accept: text/csv) for the download.
import { dataOf } from './answer';
import type { ApiClient } from './client';
import type { operations } from './schema';
import { useSession } from './session';

export type UsageQuery = NonNullable<operations['getUsage']['parameters']['query']>;
type UsageReport = operations['getUsage']['responses'][200]['content']['application/json'];

function jsonReport(report: UsageReport | string): UsageReport {
  if (typeof report === 'string') throw new Error('The usage report came as CSV.');
  return report;
}

export function useUsageReport(query: UsageQuery) {
  return useSession().api.useQuery('get', '/usage', { params: { query } }, { select: jsonReport });
}

export async function usageCsv(client: ApiClient, query: UsageQuery): Promise<Blob> {
  const answer = await client.GET('/usage', { params: { query }, headers: { Accept: 'text/csv' }, parseAs: 'blob' });
  return dataOf(answer);
}
