// zod with the .openapi() extension, so the schemas that validate requests and responses also describe them.
import { extendZodWithOpenApi } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';

extendZodWithOpenApi(z);

export { z };
