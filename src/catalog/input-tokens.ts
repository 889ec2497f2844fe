// The input tokens a text-to-text reservation assumes: an upper bound that holds for every script and every model
// family, so the cap at the reservation never discards tokens the provider really bills.
export interface TextInput {
  prompt?: string;
  system_prompt?: string;
  messages?: { role: string; content: string }[];
}

/**
 * The catalog's text models (Kimi, Llama 3, Qwen, and whatever an operator adds) each have their own byte-level BPE
 * (or byte-fallback SentencePiece) vocabulary, and every token of those stands for at least one UTF-8 byte: the
 * byte count bounds the token count whatever the tokenizer. A GPT tokenizer would not bound another family's count.
 */
const tokensPerUtf8Byte = 1;
/** A chat message's own tokens (start, role, separators, end, a SentencePiece prefix), which its text does not show. */
export const framingTokensPerMessage = 8;
/** The chat template's text around the conversation (BOS, the reply header, a default system text such as Llama 3's
 * dates or Kimi's greeting): tokens the provider counts and the request does not contain. */
export const framingTokensPerRequest = 128;

/**
 * The texts sent upstream: the system prompt and the prompt (messages folded into them are not sent again), or,
 * before folding, each message under its role, which is as long as its folded "User: …" paragraph.
 */
function sentTexts(input: TextInput): string[] {
  const system = input.system_prompt ? [input.system_prompt] : [];
  if (input.prompt !== undefined || !input.messages?.length) return [...system, input.prompt ?? ''];
  return [...system, ...input.messages.map((message) => `${message.role}: ${message.content}`)];
}

/** At least the input tokens any provider reports for this request. */
export function inputTokensUpperBound(input: TextInput): number {
  const texts = sentTexts(input);
  const bytes = texts.reduce((sum, text) => sum + Buffer.byteLength(text, 'utf8'), 0);
  return bytes * tokensPerUtf8Byte + framingTokensPerMessage * texts.length + framingTokensPerRequest;
}
