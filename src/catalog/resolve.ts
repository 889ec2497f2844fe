// Finds the model a request names and checks the request against it: the shared first step of quoting and
// admitting a generation. Every problem names the request field.
import { DomainError } from '../domain/errors.ts';
import type { Catalog, CatalogModel } from './catalog.ts';
import { capabilityProblems, type CapabilityInput, type FieldProblem } from './capabilities.ts';

export class ModelRequestError extends DomainError {
  override name = 'ModelRequestError';
  constructor(readonly problems: FieldProblem[]) {
    super('validation_error', problems.map((problem) => `${problem.field}: ${problem.message}`).join('; '));
  }

  // Replay details and genctl show the bare problems; an API caller is told they are the body's.
  override get callerMessage(): string {
    return `Invalid body: ${this.message}`;
  }
}

export function resolveModel(
  catalog: Catalog,
  request: CapabilityInput & { type: string; model: string },
): CatalogModel {
  const model = catalog.get(request.model);
  if (!model) {
    throw new ModelRequestError([
      { field: 'model', message: `unknown model "${request.model}"; GET /api/v1/models lists them` },
    ]);
  }
  if (model.type !== request.type) {
    throw new ModelRequestError([{ field: 'model', message: `${model.id} serves ${model.type}, not ${request.type}` }]);
  }
  const problems = capabilityProblems(model, request);
  if (problems.length > 0) throw new ModelRequestError(problems);
  return model;
}
