// Quote and admission price the same request alike, for every catalog model and every combination of the options it
// offers, through the HTTP schemas that validate them (so an option one of them dropped would show). An option the
// model does not offer is refused by both, naming the field; the options the caller chose reach the upstream input.
import { describe, expect, it } from 'vitest';
import { AgentQuoteRequestSchema } from '../../src/api/resources/agents/agents.schemas.ts';
import { CreateGenerationBodySchema } from '../../src/api/resources/generations/generations.schemas.ts';
import { type CatalogModel, loadCatalog } from '../../src/catalog/catalog.ts';
import { soundOffer } from '../../src/catalog/capabilities.ts';
import { priceRequest } from '../../src/catalog/pricing.ts';
import { ModelRequestError } from '../../src/catalog/resolve.ts';
import { loadConfig } from '../../src/config/config.ts';
import { upstreamInput } from '../../src/providers/upstream-input.ts';
import { quotePrice } from '../../src/accounts/agents.ts';
import { admissibleRequest } from '../../src/use-cases/generations/admissible.ts';
import { sampleRequest } from '../helpers/sample-requests.ts';

const catalog = loadCatalog();
const config = loadConfig({ FAL_KEY: 'fal-key', REPLICATE_API_TOKEN: 'r8-token', OPENAI_API_KEY: 'sk-key' }, []);

/** POST /generations as the route sees it: parsed by its body schema, then admitted. */
const admit = (body: object) => admissibleRequest({ config, catalog }, CreateGenerationBodySchema.parse(body));
/** POST /agents/quote as the route sees it. */
const quote = (body: object) => quotePrice(catalog, AgentQuoteRequestSchema.parse(body));

type Options = Record<string, unknown>;

/** Every combination of the options the model offers, each also left out (the model's default). */
function optionCombinations(model: CatalogModel): Options[] {
  const caps = model.capabilities;
  const sound = { optional: [false, true], always: [true], never: [false] }[soundOffer(model)];
  const dimensions: [string, unknown[]][] = [
    ['resolution', caps.resolutions ?? []],
    [
      'duration',
      model.pricing.kind === 'per_minute_of_input' ? [1, 61, model.pricing.max_minutes * 60] : (caps.durations ?? []),
    ],
    ['num_outputs', Array.from({ length: caps.max_outputs ?? 1 }, (_, i) => i + 1)],
    ['sound', sound],
    ['generate_type', caps.generate_types ?? []],
  ];
  return dimensions.reduce<Options[]>(
    (combinations, [field, values]) =>
      combinations.flatMap((combination) => [
        combination,
        ...values.map((value) => ({ ...combination, [field]: value })),
      ]),
    [{}],
  );
}

/** A request the model admits with these options; a per-character model's prompt is the length a quote assumes. */
function generationBody(model: CatalogModel, options: Options): Options {
  const { duration: _shortest, ...body } = sampleRequest(model);
  const rule = model.pricing;
  const prompt = rule.kind === 'per_1k_characters' ? { prompt: 'x'.repeat(rule.assumed_characters) } : {};
  return { ...body, ...prompt, ...options };
}

const rows = catalog.models.flatMap((model) =>
  optionCombinations(model).map((options) => [model.id, JSON.stringify(options), model, options] as const),
);

describe('quote and admission agree', () => {
  it('over many rows: every model, every option combination', () => {
    expect(new Set(rows.map(([id]) => id)).size).toBe(catalog.models.length);
    expect(rows.length).toBeGreaterThan(200);
  });

  it.each(rows)('%s %s', (_id, _options, model, options) => {
    const quoted = quote({ type: model.type, model: model.id, ...options });
    const admitted = admit(generationBody(model, options));
    if (model.pricing.kind === 'per_token') {
      // A quote carries no prompt: it names the input tokens it assumed (an empty prompt's framing), and the
      // output tokens, which admission reserves alike; admission adds its prompt's tokens.
      const breakdown = priceRequest(model, admitted.request).breakdown;
      expect(breakdown.output_tokens).toBe(quoted.assumedTokens!.output);
      expect(breakdown.input_tokens as number).toBeGreaterThan(quoted.assumedTokens!.input);
      expect(admitted.costMicros).toBeGreaterThan(quoted.price.micros);
      return;
    }
    expect(admitted.costMicros).toBe(quoted.price.micros);
    // The chosen options are what admission stored for the task, so they are what the workflow runs, and an
    // upstream model is asked for them (sound always explicitly where the model offers the choice).
    expect(admitted.request).toMatchObject(options);
    if (model.provider === 'fal' || model.provider === 'replicate') {
      const input = upstreamInput(admitted.request, model);
      const soundField = model.upstream.parameters.sound ?? 'sound';
      if (model.capabilities.supports_sound) expect(input[soundField]).toBe(options.sound ?? false);
      else expect(input).not.toHaveProperty(soundField);
      expect(input.generate_type).toBe(options.generate_type);
    }
  });
});

describe('an option the model does not offer is refused by quote and admission alike, naming the field', () => {
  const problems = (run: () => unknown) => {
    try {
      run();
    } catch (error) {
      if (error instanceof ModelRequestError) return error.problems;
      throw error;
    }
    return [];
  };
  it.each<[string, string, Options, RegExp]>([
    ['sound on a silent model', 'fal/hailuo-02', { sound: true }, /^this model does not generate sound/],
    ['silence from a model whose video always has sound', 'openai/sora-2', { sound: false }, /always generates sound/],
    ['generate_type on a model without one', 'fal/trellis', { generate_type: 'LowPoly' }, /takes no generate_type/],
  ])('%s (%s)', (_name, id, options, message) => {
    const model = catalog.get(id)!;
    const { type: _type, model: _model, ...input } = generationBody(model, options);
    const field = Object.keys(options)[0];
    for (const refused of [
      problems(() => quote({ type: model.type, model: id, ...options })),
      problems(() => admit(generationBody(model, options))),
      problems(() => admit({ model: id, input })),
    ])
      expect(refused).toEqual([{ field, message: expect.stringMatching(message) }]);
  });
});
