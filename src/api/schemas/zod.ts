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
    .refine(isWellFormed, 'must be valid Unicode (no unpaired surrogate)');

/** A request's string field: storable text, at most `max` characters when the interface sets a length. */
export const safeText = (max?: number) => storable(max === undefined ? z.string() : z.string().max(max));
