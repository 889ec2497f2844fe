// The text-to-text reservation's input tokens against real tokenizers (two OpenAI BPE vocabularies, as
// gpt-tokenizer ships them): never fewer than a real count, whatever the script, and folded messages counted once.
import { encodeChat as encodeChatCl100k } from 'gpt-tokenizer/model/gpt-3.5-turbo';
import { encodeChat as encodeChatO200k } from 'gpt-tokenizer/model/gpt-4o';
import { describe, expect, it } from 'vitest';
import { loadCatalog } from '../../src/catalog/catalog.ts';
import { type PricingInput, priceRequest } from '../../src/catalog/pricing.ts';
import type { GenerationRequest } from '../../src/domain/generation-request.ts';
import { foldMessages } from '../../src/generations/request.ts';

const catalog = loadCatalog();
const textModels = catalog.models.filter((model) => model.pricing.kind === 'per_token');
/** The input tokens admission reserves for the request. */
const reserved = (model: (typeof textModels)[number], input: PricingInput) =>
  priceRequest(model, input).breakdown.input_tokens as number;

/** What the OpenAI-compatible runner sends: the system prompt and the prompt, as two chat messages. */
const chat = (input: { system_prompt?: string; prompt: string }) => [
  ...(input.system_prompt ? [{ role: 'system' as const, content: input.system_prompt }] : []),
  { role: 'user' as const, content: input.prompt },
];
const realCounts = (input: { system_prompt?: string; prompt: string }) => [
  encodeChatCl100k(chat(input)).length,
  encodeChatO200k(chat(input)).length,
];

const scripts: [string, string][] = [
  ['Chinese', '请用三句话介绍一下长城的历史，并说明它为什么被列为世界文化遗产。'.repeat(20)],
  ['Japanese', 'こんにちは、世界！今日はとても良い天気ですね。東京タワーに行きましょう。'.repeat(20)],
  ['Korean', '안녕하세요, 오늘 날씨가 정말 좋네요. 한강 공원에 산책하러 갈까요?'.repeat(20)],
  ['emoji', '👍🏽🎉👨‍👩‍👧‍👦🇯🇵🧑🏿‍🚀🫶🏻'.repeat(30)],
  ['rare CJK (4-byte UTF-8)', '𠀀𠀁𠀂𪚥𰻞'.repeat(40)],
  ['Arabic', 'مرحبا بالعالم، كيف حالك اليوم؟ الطقس جميل جدا.'.repeat(20)],
  ['Hindi', 'नमस्ते दुनिया, आज मौसम बहुत अच्छा है।'.repeat(20)],
  ['Thai', 'สวัสดีชาวโลก วันนี้อากาศดีมาก'.repeat(20)],
  ['English', 'The quick brown fox jumps over the lazy dog. '.repeat(20)],
  ['code', 'for (let i = 0; i < n; i++) { sum += a[i] * b[i]; }\n'.repeat(20)],
];

describe('the input tokens a text-to-text generation reserves', () => {
  it.each(scripts)('are never fewer than a real tokenizer counts: %s', (_script, text) => {
    for (const model of textModels) {
      const input = { system_prompt: 'Answer briefly.', prompt: text };
      const tokens = reserved(model, input);
      for (const real of realCounts(input)) expect(tokens, `${model.id}`).toBeGreaterThanOrEqual(real);
    }
  });

  it('hold for text that tokenizes worst: one token per byte', () => {
    const prompt = '\u{1F9D1}\u{1F3FF}\u200D\u{1F680}'.repeat(50); // an astronaut of dark skin tone, 15 bytes each
    for (const model of textModels) {
      expect(reserved(model, { prompt })).toBeGreaterThanOrEqual(Buffer.byteLength(prompt, 'utf8'));
    }
  });

  it('count folded messages once: as the system prompt and transcript that are sent, not again as messages', () => {
    const request = foldMessages({
      type: 'text-to-text',
      model: 'openai/kimi-k2',
      messages: [
        { role: 'system', content: '你是一位简洁的助手。' },
        { role: 'user', content: '长城有多长？'.repeat(50) },
        { role: 'assistant', content: '大约两万一千公里。' },
        { role: 'user', content: '它是什么时候建造的？'.repeat(50) },
      ],
    } satisfies GenerationRequest);
    const model = catalog.get('openai/kimi-k2')!;
    const sent = { system_prompt: request.system_prompt, prompt: request.prompt! };
    expect(reserved(model, request)).toBe(reserved(model, sent));
    for (const real of realCounts(sent)) expect(reserved(model, request)).toBeGreaterThanOrEqual(real);
    // Unfolded messages (priced before folding) are counted at least as long as their folded form.
    const { messages } = request;
    expect(reserved(model, { messages })).toBeGreaterThanOrEqual(reserved(model, sent));
  });

  it('stop at the context window, past which no provider bills', () => {
    const model = catalog.get('openai/llama-3.3-70b')!;
    expect(reserved(model, { prompt: '长'.repeat(200_000) })).toBe(model.capabilities.context_window_tokens);
  });
});
