// An openapi-fetch answer as a query's result: its data, or an Error carrying the API's message.
import { errorMessage } from './client';

interface Answer<Data> {
  data?: Data;
  error?: unknown;
}

export function dataOf<Data>(answer: Answer<Data>): Data {
  if (answer.error !== undefined || answer.data === undefined) throw new Error(errorMessage(answer.error));
  return answer.data;
}
