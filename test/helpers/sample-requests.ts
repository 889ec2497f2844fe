// A small valid request for any catalog model, from its type and capabilities: the inputs it takes (by URL), its
// shortest duration; and the suite that runs one model of each type a provider serves through its stand-in, with its
// inputs served on a local port (a model priced on its inputs' length has them measured at admission).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type CatalogModel, loadCatalog } from '../../src/catalog/catalog.ts';
import { priceRequest } from '../../src/catalog/pricing.ts';
import { formatUsd } from '../../src/domain/money.ts';
import type { FundedDeveloper, Gateway } from './gateway.ts';
import { generateAndWait } from './http.ts';
import {
  type InputServer,
  mediaTypes,
  mp4Of,
  type OutputMedia,
  outputKind,
  pngImage,
  startInputServer,
  wavTone,
} from './media.ts';

type SampleInputs = Record<'image_url' | 'video_url' | 'audio_url', string>;

const exampleInputs: SampleInputs = {
  image_url: 'https://inputs.example/photo.png',
  video_url: 'https://inputs.example/clip.mp4',
  audio_url: 'https://inputs.example/voice.mp3',
};

/** How long the served sample audio and video last: what a model priced on its inputs' length is priced on. */
const sampleSeconds = 1;

/** The sample inputs on a local port (filled in by beforeAll): admission downloads and measures some of them. */
function useServedInputs(): () => SampleInputs {
  let server: InputServer | undefined;
  beforeAll(async () => {
    server = await startInputServer({
      '/photo.png': { body: await pngImage(), contentType: 'image/png' },
      '/clip.mp4': { body: mp4Of(sampleSeconds), contentType: 'video/mp4' },
      '/voice.wav': { body: wavTone(sampleSeconds), contentType: 'audio/wav' },
    });
  });
  afterAll(() => server?.close());
  return () => ({
    image_url: `${server!.url}/photo.png`,
    video_url: `${server!.url}/clip.mp4`,
    audio_url: `${server!.url}/voice.wav`,
  });
}

export function sampleRequest(model: CatalogModel, inputs: SampleInputs = exampleInputs): Record<string, unknown> {
  const { input_modalities: takes, durations } = model.capabilities;
  return {
    type: model.type,
    model: model.id,
    ...(takes.includes('text') ? { prompt: 'a quiet harbour at dawn' } : {}),
    ...(takes.includes('image') ? { image_url: inputs.image_url } : {}),
    ...(takes.includes('image') &&
    (['face-swap', 'reference-to-video', 'subject-to-video'].includes(model.type) ||
      model.inputs.required.includes('images'))
      ? { images: [inputs.image_url] }
      : {}),
    ...(takes.includes('video') ? { video_url: inputs.video_url } : {}),
    ...(takes.includes('audio') ? { audio_url: inputs.audio_url } : {}),
    ...(durations?.length ? { duration: durations[0] } : {}),
  };
}

/** The first model of each type a provider serves. */
export function oneModelPerType(models: readonly CatalogModel[], provider: string): CatalogModel[] {
  const seen = new Set<string>();
  return models.filter((model) => model.provider === provider && !seen.has(model.type) && seen.add(model.type));
}

/**
 * Declares one test per generation type the provider serves: the type's first model completes through the API
 * against the provider's stand-in, its output is the stand-in's file, and exactly its price is charged.
 * `lastUpstreamModel` names what the stand-in was last asked to run.
 */
export function itRunsOneModelOfEachType(
  suite: {
    gateway: Gateway;
    developer: FundedDeveloper;
    media: () => OutputMedia;
    lastUpstreamModel: () => string | undefined;
  },
  provider: string,
): void {
  const models = oneModelPerType(loadCatalog().models, provider);
  const inputs = useServedInputs();
  it.each(models.map((model) => [model.type, model] as const))(
    '%s: one model completes, its output stored and its price charged',
    async (_type, model) => {
      const before = await suite.developer.balance();
      const body = sampleRequest(model, inputs());
      // What admission reserves for this very request (a quote, without the prompt, assumes a typical length; a model
      // priced on its inputs' length pays for what they measure).
      const measured = model.measured_inputs ? { input_seconds: sampleSeconds } : {};
      const price = priceRequest(model, { ...body, ...measured } as never).micros;
      const task = await generateAndWait(suite.gateway, { key: suite.developer.key, body: body });
      const kind = outputKind(model.capabilities.output_modalities);
      expect(task).toMatchObject({
        status: 'completed',
        cost: Number(formatUsd(price)),
        output: expect.stringMatching(new RegExp(`output-0\\.${mediaTypes[kind].extension}$`)),
      });
      expect(suite.lastUpstreamModel()).toBe(model.upstream.model);
      expect(Buffer.from(await (await fetch(task.output)).arrayBuffer()).equals(suite.media()[kind])).toBe(true);
      expect(await suite.developer.balance()).toBe(before - price);
    },
  );
}
