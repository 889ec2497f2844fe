import { describe, expect, it } from 'vitest';
import type { GenerationRequest } from '../../src/domain/generation-request.ts';
import { foldMessages, missingInputs, normaliseLayout, requestHash } from '../../src/generations/request.ts';

describe('normaliseLayout', () => {
  it('maps the input layout onto the top-level one, taking the type from the model', () => {
    const request = normaliseLayout(
      {
        model: 'fal/hailuo-02',
        input: { prompt: 'a wave', aspect_ratio: '16:9', duration: 6 },
        webhook: 'https://me.example/hook',
      },
      (model) => (model === 'fal/hailuo-02' ? 'text-to-video' : undefined),
    );
    expect(request).toEqual({
      type: 'text-to-video',
      model: 'fal/hailuo-02',
      prompt: 'a wave',
      aspect_ratio: '16:9',
      duration: 6,
      webhook_url: 'https://me.example/hook',
    });
  });

  it('keeps an explicit type and leaves the top-level layout as it is', () => {
    const top = { type: 'text-to-image' as const, model: 'fal/flux-dev', prompt: 'a cat' };
    expect(normaliseLayout(top, () => 'upscale')).toBe(top);
    expect(normaliseLayout({ model: 'x', type: 'upscale', input: {} }, () => 'text-to-image').type).toBe('upscale');
  });
});

describe('foldMessages (text-to-text without prompt)', () => {
  const base: GenerationRequest = { type: 'text-to-text', model: 'openai/kimi-k2' };

  it('joins system messages into system_prompt and the rest into a labelled transcript', () => {
    const folded = foldMessages({
      ...base,
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hi' },
        { role: 'assistant', content: 'Hello!' },
        { role: 'system', content: 'Answer in French.' },
        { role: 'user', content: 'Capital of Italy?' },
      ],
    });
    expect(folded.system_prompt).toBe('Be brief.\n\nAnswer in French.');
    expect(folded.prompt).toBe('User: Hi\n\nAssistant: Hello!\n\nUser: Capital of Italy?');
  });

  it('puts a given system_prompt first', () => {
    const folded = foldMessages({
      ...base,
      system_prompt: 'You are a poet.',
      messages: [
        { role: 'system', content: 'Rhyme.' },
        { role: 'user', content: 'Sea' },
      ],
    });
    expect(folded).toMatchObject({ system_prompt: 'You are a poet.\n\nRhyme.', prompt: 'User: Sea' });
  });

  it('leaves requests with a prompt, and other types, alone', () => {
    const withPrompt = { ...base, prompt: 'Hi', messages: [{ role: 'user' as const, content: 'ignored' }] };
    expect(foldMessages(withPrompt)).toBe(withPrompt);
    const image = { type: 'text-to-image' as const, model: 'm', messages: [{ role: 'user' as const, content: 'x' }] };
    expect(foldMessages(image)).toBe(image);
  });
});

describe('missingInputs of each generation type', () => {
  const anyModel = { id: 'm', inputs: { required: [], single: [] } };
  it.each<[GenerationRequest, string | null]>([
    [{ type: 'text-to-image', model: 'm', prompt: 'a cat' }, null],
    [{ type: 'text-to-image', model: 'm', prompt: '   ' }, 'prompt'],
    [{ type: 'image-to-video', model: 'm', images: ['https://x/a.png'] }, null],
    [{ type: 'image-to-3d', model: 'm' }, 'image_url'],
    [{ type: 'video-to-video', model: 'm' }, 'video_url'],
    [{ type: 'lip-sync', model: 'm', video_url: 'https://x/v.mp4' }, 'audio_url'],
    [{ type: 'speech-to-text', model: 'm' }, 'audio_url'],
    [{ type: 'text-to-text', model: 'm', messages: [{ role: 'user', content: 'hi' }] }, null],
    [{ type: 'text-to-text', model: 'm' }, 'prompt'],
    [{ type: 'face-swap', model: 'm', image_url: 'https://x/target.png' }, 'images'],
    [{ type: 'face-swap', model: 'm', images: ['https://x/target.png', 'https://x/face.png'] }, 'image_url'],
    [{ type: 'face-swap', model: 'm', image_url: 'https://x/target.png', images: ['https://x/face.png'] }, null],
  ])('%o → %s', (request, field) => {
    expect(missingInputs(request, anyModel).map((problem) => problem.field)[0] ?? null).toBe(field);
  });
});

it('requestHash ignores key order and undefined fields, and sees every value', () => {
  const a = requestHash({ type: 'upscale', model: 'm', image_url: 'https://x/a.png', resolution: undefined });
  expect(requestHash({ image_url: 'https://x/a.png', model: 'm', type: 'upscale' })).toBe(a);
  expect(requestHash({ type: 'upscale', model: 'm', image_url: 'https://x/b.png' })).not.toBe(a);
});
