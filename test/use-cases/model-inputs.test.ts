// What admission asks of a request for its model (catalog `inputs`), and how those inputs reach the upstream:
// face-swap's two pictures, image editors' instructions, the one input field each remote model reads.
import { describe, expect, it } from 'vitest';
import { loadCatalog } from '../../src/catalog/catalog.ts';
import { ModelRequestError } from '../../src/catalog/resolve.ts';
import { loadConfig } from '../../src/config/config.ts';
import { upstreamInput } from '../../src/providers/upstream-input.ts';
import { admissibleRequest } from '../../src/use-cases/generations/admissible.ts';

const catalog = loadCatalog();
const config = loadConfig({ NODE_ENV: 'test', FAL_KEY: 'fal-test-key', REPLICATE_API_TOKEN: 'r8-test-token' }, []);
const admit = (body: object) => admissibleRequest({ config, catalog }, body as never);

/** The fields admission names, as the 400 would. */
function refusedFields(body: object): string[] {
  try {
    admit(body);
  } catch (error) {
    if (error instanceof ModelRequestError) return error.problems.map((problem) => problem.field);
    throw error;
  }
  return [];
}

const target = 'https://inputs.example/group-photo.png';
const face = 'https://inputs.example/face.png';

describe('face-swap', () => {
  const faceSwap = { type: 'face-swap', model: 'fal/face-swap' };

  it.each<[string, object, string[]]>([
    ['the picture only', { image_url: target }, ['images']],
    ['the face only, as images', { images: [face] }, ['image_url']],
    ['two faces for a model that takes one', { image_url: target, images: [face, face] }, ['images']],
    ['both pictures', { image_url: target, images: [face] }, []],
  ])('%s → refused fields %o', (_name, inputs, fields) => {
    expect(refusedFields({ ...faceSwap, ...inputs })).toEqual(fields);
  });

  it('sends the picture as base_image_url and the face as swap_image_url, each one URL', () => {
    const { request, model } = admit({ ...faceSwap, image_url: target, images: [face] });
    expect(upstreamInput(request, model)).toEqual({ base_image_url: target, swap_image_url: face });
  });
});

describe('image-to-image models that edit by instruction', () => {
  it.each([
    ['fal/flux-kontext-pro', { image_url: target }],
    ['fal/nano-banana-edit', { images: [target] }],
  ])('%s needs a prompt (400 naming it), and runs with one', (model, image) => {
    const body = { type: 'image-to-image', model, ...image };
    expect(refusedFields(body)).toEqual(['prompt']);
    expect(refusedFields({ ...body, prompt: '   ' })).toEqual(['prompt']);
    expect(refusedFields({ ...body, prompt: 'make it winter' })).toEqual([]);
  });

  it.each([
    ['fal/flux-kontext-pro', 'image_url', { images: [target] }],
    ['fal/nano-banana-edit', 'images', { image_url: target }],
  ])('%s needs its image in %s, the field its upstream reads', (model, field, image) => {
    expect(refusedFields({ type: 'image-to-image', model, prompt: 'make it winter', ...image })).toEqual([field]);
  });
});

describe('remote models whose upstream reads one of the two input fields their type accepts', () => {
  const clip = 'https://inputs.example/clip.mp4';
  it.each<[string, string, string, object, object]>([
    ['fal/kling-2.1-standard', 'image-to-video', 'image_url', { image_url: target }, { images: [target] }],
    ['fal/hunyuan3d-2.1', 'image-to-3d', 'image_url', { image_url: target }, { images: [target] }],
    ['fal/trellis', 'image-to-3d', 'image_url', { image_url: target }, { images: [target] }],
    ['replicate/real-esrgan', 'upscale', 'image_url', { image_url: target }, { images: [target] }],
    ['fal/vidu-q1-reference', 'reference-to-video', 'images', { images: [target] }, { image_url: target }],
    ['fal/wan-vace', 'video-to-video', 'video_url', { video_url: clip }, { videos: [clip] }],
  ])('%s (%s) needs %s: given only the other field, 400 naming it', (model, type, field, read, other) => {
    expect(refusedFields({ type, model, prompt: 'slowly', ...other })).toEqual([field]);
    expect(refusedFields({ type, model, prompt: 'slowly', ...read, ...other })).toEqual([]);
    // What it reads reaches the upstream (under the upstream's name for it).
    const { request, model: admitted } = admit({ type, model, prompt: 'slowly', ...read });
    expect(Object.values(upstreamInput(request, admitted))).toContainEqual(Object.values(read)[0]);
  });
});
