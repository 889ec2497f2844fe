// GET /usage as JSON (the report), or as the CSV file the server writes (Accept: text/csv) for the download.
import type { ApiClient } from './client';
import { dataOf } from './answer';
import type { operations } from './schema';

export type UsageQuery = NonNullable<operations['getUsage']['parameters']['query']>;

export async function usageReport(client: ApiClient, query: UsageQuery) {
  const report = dataOf(await client.GET('/usage', { params: { query } }));
  if (typeof report === 'string') throw new Error('The usage report came as CSV.');
  return report;
}

export async function usageCsv(client: ApiClient, query: UsageQuery): Promise<Blob> {
  const answer = await client.GET('/usage', { params: { query }, headers: { Accept: 'text/csv' }, parseAs: 'blob' });
  return dataOf(answer);
}
