// zod with the .openapi() extension, so the schemas that validate requests and responses also describe them.
import { extendZodWithOpenApi } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';

extendZodWithOpenApi(z);

export { z };

// PostgreSQL stores no NUL (text and jsonb refuse it) and a lone surrogate has no UTF-8 form: such text is refused
// here, naming the field, rather than by the database once a task is under way.
const hasNoNul = (text: string) => !text.includes('\u0000');
const isWellFormed = (text: string) => !/\p{Surrogate}/u.test(text);

/** The checks every string of a request passes, on any string schema (plain, URL, …). */
export const storable = <S extends z.ZodType<string, string>>(schema: S): S =>
  schema
    .refine(hasNoNul, 'must not contain NUL (\\u0000) characters')
    .refine(isWellFormed, 'must be valid Unicode (no unpaired surrogate)')
    // The document says so too (JSON itself cannot carry an unpaired surrogate in a valid UTF-8 body).
    .openapi({ pattern: '^[^\\u0000]*$' });

/** A request's string field: storable text, at most `max` characters when the interface sets a length. */
export const safeText = (max?: number) => storable(max === undefined ? z.string() : z.string().max(max));

/** PostgreSQL `integer`: tasks store duration and num_outputs in it. */
export const int32Max = 2_147_483_647;

/** A request's integer field, from `min` to `max` (by default PostgreSQL's integer), both bounds declared. */
export const boundedInt = (min: number, max = int32Max) => z.int().min(min).max(max);
