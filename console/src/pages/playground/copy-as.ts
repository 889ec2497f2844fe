// The request the form makes, as a command to run elsewhere: curl against this gateway, an MCP tools/call, or Node code
// with the `openai` SDK against /openai/v1. The key is a placeholder: a copied secret ends up in shell histories and
// chat logs.
import type { GenerationRequest } from './inputs';

const quoted = (text: string) => `'${text.replaceAll("'", "'\\''")}'`;

/** `idempotencyKey`: running the copied command twice answers the same task, charged once. */
export function curlCommand(origin: string, body: GenerationRequest, idempotencyKey: string): string {
  return [
    `curl -sS ${origin}/api/v1/generations`,
    `  -H "Authorization: Bearer $GATEWAY_API_KEY"`,
    `  -H 'Content-Type: application/json'`,
    `  -H 'Idempotency-Key: ${idempotencyKey}'`,
    `  -d ${quoted(JSON.stringify(body))}`,
  ].join(' \\\n');
}

/** The JSON-RPC request an MCP client sends to `${origin}/mcp` (with the key as its bearer token). */
export function mcpCall(body: GenerationRequest): string {
  const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'generate', arguments: body } };
  return JSON.stringify(call, null, 2);
}

/** The `openai` SDK's call for a request of the types /openai/v1 serves, with the code around it; null for others. */
function openAiCall(body: GenerationRequest): { imports: string[]; code: string[] } | null {
  const model = JSON.stringify(body.model);
  const prompt = JSON.stringify(body.prompt ?? '');
  const fileOf = (name: string) => `await toFile(await readFile('${name}'), '${name}')`;
  const size = body.resolution && /^\d+x\d+$/.test(body.resolution) ? `, size: '${body.resolution}'` : '';
  const count = body.num_outputs ? `, n: ${body.num_outputs}` : '';
  switch (body.type) {
    case 'text-to-audio':
      return {
        imports: ["import { writeFile } from 'node:fs/promises';"],
        code: [
          `const speech = await openai.audio.speech.create({ model: ${model}, input: ${prompt}, voice: 'alloy' });`,
          "await writeFile('speech', Buffer.from(await speech.arrayBuffer())); // in the model's own audio format",
        ],
      };
    case 'text-to-image':
      return {
        imports: [],
        code: [
          `const image = await openai.images.generate({ model: ${model}, prompt: ${prompt}${count}${size} });`,
          'console.log(image.data.map((output) => output.url));',
        ],
      };
    case 'image-to-image':
    case 'upscale':
      return {
        imports: ["import { readFile } from 'node:fs/promises';"],
        code: [
          `const image = await openai.images.edit({ model: ${model}, prompt: ${prompt}, image: ${fileOf('image.png')} });`,
          'console.log(image.data.map((output) => output.url));',
        ],
      };
    case 'speech-to-text':
      return {
        imports: ["import { readFile } from 'node:fs/promises';"],
        code: [
          `const transcript = await openai.audio.transcriptions.create({ model: ${model}, file: ${fileOf('recording.wav')} });`,
          'console.log(transcript.text);',
        ],
      };
    case 'text-to-text':
      return {
        imports: [],
        code: [
          `const completion = await openai.chat.completions.create({ model: ${model}, messages: [{ role: 'user', content: ${prompt} }] });`,
          'console.log(completion.choices[0].message.content);',
        ],
      };
    case 'text-to-video':
    case 'image-to-video': {
      const seconds = body.duration ? `, seconds: '${body.duration}'` : '';
      const image = body.type === 'image-to-video' ? `, input_reference: ${fileOf('image.png')}` : '';
      return {
        imports: body.type === 'image-to-video' ? ["import { readFile } from 'node:fs/promises';"] : [],
        code: [
          `const video = await openai.videos.create({ model: ${model}, prompt: ${prompt}${seconds}${image} });`,
          'console.log(video.id); // then openai.videos.retrieve(video.id) until completed, and downloadContent',
        ],
      };
    }
    default:
      return null;
  }
}

/** Node code with the `openai` SDK against `${origin}/openai/v1`; null for a type it has no call for. */
export function openAiSdkCode(origin: string, body: GenerationRequest): string | null {
  const call = openAiCall(body);
  if (!call) return null;
  const usesFiles = call.code.some((line) => line.includes('toFile('));
  return [
    `import OpenAI${usesFiles ? ', { toFile }' : ''} from 'openai';`,
    ...call.imports,
    '',
    `const openai = new OpenAI({ baseURL: '${origin}/openai/v1', apiKey: process.env.GATEWAY_API_KEY });`,
    ...call.code,
  ].join('\n');
}
