// text-to-text through any OpenAI-compatible chat completions server with the official `openai` SDK. The answer
// becomes a .txt artifact; settlement charges the token usage the server reports.
import type OpenAI from 'openai';
import { ProviderRefusal, type ProviderRunner } from '../types.ts';
import type { OpenAIUpstream } from './client.ts';

export function createOpenAIChatRunner(upstream: OpenAIUpstream): ProviderRunner {
  return async (request, model, context) => {
    const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [
      ...(request.system_prompt ? [{ role: 'system' as const, content: request.system_prompt }] : []),
      { role: 'user' as const, content: request.prompt ?? '' },
    ];
    const pricing = model.pricing.kind === 'per_token' ? model.pricing : undefined;
    // Parameters the OpenAI API lacks but compatible servers (vLLM, OpenRouter, llama.cpp) accept in the body.
    const extra = {
      ...(request.top_k !== undefined ? { top_k: request.top_k } : {}),
      ...(request.repetition_penalty !== undefined ? { repetition_penalty: request.repetition_penalty } : {}),
      ...(request.enable_thinking !== undefined
        ? { chat_template_kwargs: { enable_thinking: request.enable_thinking } }
        : {}),
    };
    const completion = await upstream.call(model, context.signal, (options) =>
      upstream.client.chat.completions.create(
        {
          model: model.upstream.model,
          messages,
          max_tokens: request.max_tokens ?? pricing?.default_max_tokens,
          temperature: request.temperature,
          top_p: request.top_p,
          presence_penalty: request.presence_penalty,
          frequency_penalty: request.frequency_penalty,
          seed: request.seed,
          ...extra,
        } as OpenAI.Chat.ChatCompletionCreateParamsNonStreaming,
        options,
      ),
    );
    const choice = completion.choices?.[0];
    // A malformed answer will not improve on retry: fail the task, refunded, with a plain reason.
    if (!choice) throw new ProviderRefusal('The model returned no answer.');
    if (choice.finish_reason === 'content_filter')
      throw new ProviderRefusal('The provider refused to answer this request (content policy).');
    const text = choice.message?.content ?? '';
    return {
      files: [{ data: Buffer.from(text, 'utf8'), extension: 'txt', contentType: 'text/plain; charset=utf-8' }],
      usage: completion.usage
        ? { input_tokens: completion.usage.prompt_tokens, output_tokens: completion.usage.completion_tokens }
        : undefined,
    };
  };
}
