// Each tool's `outputSchema`: the JSON Schema of what its REST endpoints answer (their success schemas, the same zod
// the answers are checked against), so a host can read `structuredContent` by a declared shape.
import { z } from 'zod';
import type { Endpoint } from '../endpoint.ts';
import { ErrorSchema } from '../schemas/common.schemas.ts';
import { answeringOperations, type ToolDefinition } from './tools.ts';

type ObjectSchema = { type: 'object'; [key: string]: unknown };

/**
 * One answer's schema as JSON Schema (draft 7, which every MCP SDK's validator reads). Objects stay open to fields
 * added later, as the REST API's answers do: a client pinned to today's schema keeps validating tomorrow's answers.
 */
function answerSchema(schema: z.ZodType): Record<string, unknown> {
  const json = z.toJSONSchema(schema, {
    io: 'output',
    target: 'draft-7',
    unrepresentable: 'any',
    override: ({ jsonSchema }) => {
      if (jsonSchema.additionalProperties === false) delete jsonSchema.additionalProperties;
    },
  });
  delete json.$schema;
  return json;
}

/** x402's PaymentRequired, as x402's MCP transport answers it (a tool error) to a call that must be paid. */
const PaymentRequiredSchema = z.object({
  x402Version: z.number().int(),
  accepts: z.array(z.record(z.string(), z.unknown())),
});

/**
 * The tool's output schema: any of its answers, or a refusal (`isError`: the API's `{ error, message }`, or for a
 * tool whose endpoint may ask for an x402 payment, x402's PaymentRequired), since hosts check `structuredContent`
 * against it either way.
 */
export function toolOutputSchema(tool: ToolDefinition, endpoints: Map<string, Endpoint>): ObjectSchema {
  const answering = answeringOperations(tool).map((operationId) => endpoints.get(operationId)!);
  const answers = answering.flatMap(({ success }) => {
    const alternative = success.alternative?.schema;
    return [success.schema, ...(alternative ? [alternative] : [])];
  });
  const asksPayment = answering.some((endpoint) => endpoint.errors?.includes('payment_required'));
  const refusals = [ErrorSchema, ...(asksPayment ? [PaymentRequiredSchema] : [])];
  return { type: 'object', anyOf: [...new Set([...answers, ...refusals])].map(answerSchema) };
}
