// The model catalog: popular models at their providers' public list prices (late 2026), which operators edit to
// their own margins. Validated by catalog.schema.ts at start. `upstream.model` is the provider's own reference.
import type { z } from 'zod';
import type { catalogEntrySchema } from './catalog.schema.ts';

type Entry = z.input<typeof catalogEntrySchema>;

const image = { input_modalities: ['text'], output_modalities: ['image'] };
const imageEdit = { input_modalities: ['text', 'image'], output_modalities: ['image'] };
const video = { input_modalities: ['text'], output_modalities: ['video'] };
const imageToVideo = { input_modalities: ['text', 'image'], output_modalities: ['video'] };
const squareAndWide = ['1:1', '16:9', '9:16', '4:3', '3:4'];
const videoRatios = ['16:9', '9:16', '1:1'];
const common = { supports_x402: true, supports_webhook: true };

export const catalogEntries: Entry[] = [
  // text-to-image
  {
    slug: 'flux-schnell', name: 'FLUX.1 [schnell]', provider: 'fal', type: 'text-to-image', ...common,
    description: 'Black Forest Labs\' fastest FLUX model: 1–4 step distilled text-to-image, good for drafts and volume.',
    capabilities: { ...image, aspect_ratios: squareAndWide, max_outputs: 4 },
    pricing: { kind: 'per_output', usd: '0.003' }, timeout_seconds: 120,
    upstream: { model: 'fal-ai/flux/schnell', parameters: { aspect_ratio: 'image_size', num_outputs: 'num_images' } },
  },
  {
    slug: 'flux-dev', name: 'FLUX.1 [dev]', provider: 'fal', type: 'text-to-image', ...common,
    description: 'Black Forest Labs\' 12B open-weights FLUX model: high-quality text-to-image with strong prompt following.',
    capabilities: { ...image, aspect_ratios: squareAndWide, max_outputs: 4 },
    pricing: { kind: 'per_output', usd: '0.025' }, timeout_seconds: 180,
    upstream: { model: 'fal-ai/flux/dev', parameters: { aspect_ratio: 'image_size', num_outputs: 'num_images' } },
  },
  {
    slug: 'seedream-4', name: 'Seedream 4.0', provider: 'fal', type: 'text-to-image', ...common,
    description: 'ByteDance Seedream 4.0: text-to-image up to 4K with accurate typography and layout.',
    capabilities: { ...image, aspect_ratios: squareAndWide, resolutions: ['1K', '2K', '4K'], max_outputs: 4 },
    pricing: { kind: 'per_output', usd: '0.03' }, timeout_seconds: 240,
    upstream: { model: 'fal-ai/bytedance/seedream/v4/text-to-image', parameters: { num_outputs: 'num_images', resolution: 'image_size' } },
  },
  {
    slug: 'nano-banana', name: 'Nano Banana (Gemini 2.5 Flash Image)', provider: 'fal', type: 'text-to-image', ...common,
    description: 'Google\'s Gemini 2.5 Flash Image: fast, consistent text-to-image with world knowledge.',
    capabilities: { ...image, aspect_ratios: squareAndWide, max_outputs: 4 },
    pricing: { kind: 'per_output', usd: '0.039' }, timeout_seconds: 180,
    upstream: { model: 'fal-ai/nano-banana', parameters: { num_outputs: 'num_images' } },
  },
  {
    slug: 'gpt-image-1', name: 'GPT Image 1', provider: 'openai', type: 'text-to-image', ...common,
    description: 'OpenAI GPT Image 1 through any OpenAI-compatible images endpoint; priced per image by size.',
    capabilities: { ...image, resolutions: ['1024x1024', '1024x1536', '1536x1024'], max_outputs: 4 },
    pricing: { kind: 'per_output_by_resolution', usd_by_resolution: { '1024x1024': '0.042', '1024x1536': '0.063', '1536x1024': '0.063' } },
    timeout_seconds: 300,
    upstream: { model: 'gpt-image-1', parameters: { resolution: 'size', num_outputs: 'n' } },
  },
  // image-to-image
  {
    slug: 'flux-kontext-pro', name: 'FLUX.1 Kontext [pro]', provider: 'fal', type: 'image-to-image', ...common,
    description: 'Black Forest Labs FLUX.1 Kontext [pro]: edits an image from an instruction while keeping its subject.',
    capabilities: { ...imageEdit, aspect_ratios: squareAndWide, max_outputs: 4 },
    pricing: { kind: 'per_output', usd: '0.04' }, timeout_seconds: 180,
    upstream: { model: 'fal-ai/flux-pro/kontext', parameters: { num_outputs: 'num_images' } },
  },
  {
    slug: 'nano-banana-edit', name: 'Nano Banana Edit', provider: 'fal', type: 'image-to-image', ...common,
    description: 'Gemini 2.5 Flash Image editing: combine and edit up to several input images from a prompt.',
    capabilities: { ...imageEdit, max_outputs: 4 },
    pricing: { kind: 'per_output', usd: '0.039' }, timeout_seconds: 180,
    upstream: { model: 'fal-ai/nano-banana/edit', parameters: { images: 'image_urls', num_outputs: 'num_images' } },
  },
  // text-to-video
  {
    slug: 'hailuo-02', name: 'MiniMax Hailuo 02', provider: 'fal', type: 'text-to-video', ...common,
    description: 'MiniMax Hailuo 02: realistic physics and motion, 6 or 10 second clips at 512p or 768p.',
    capabilities: { ...video, resolutions: ['768p', '512p'], durations: [6, 10] },
    pricing: { kind: 'per_second_by_resolution', usd_by_resolution: { '512p': '0.017', '768p': '0.045' } }, timeout_seconds: 900,
    upstream: { model: 'fal-ai/minimax/hailuo-02/standard/text-to-video' },
  },
  {
    slug: 'veo-3-fast', name: 'Veo 3 Fast', provider: 'fal', type: 'text-to-video', ...common,
    description: 'Google Veo 3 Fast: 8 second 720p or 1080p video, optionally with generated sound and dialogue.',
    capabilities: { ...video, aspect_ratios: videoRatios, resolutions: ['720p', '1080p'], durations: [8], supports_sound: true },
    pricing: { kind: 'per_second', usd: '0.10' }, surcharges: { sound_usd_per_second: '0.05' }, timeout_seconds: 900,
    upstream: { model: 'fal-ai/veo3/fast', parameters: { sound: 'generate_audio' } },
  },
  {
    slug: 'wan-2.2', name: 'Wan 2.2 A14B', provider: 'replicate', type: 'text-to-video', ...common,
    description: 'Alibaba Wan 2.2 (open weights) text-to-video at 480p or 720p, 5 second clips.',
    capabilities: { ...video, aspect_ratios: videoRatios, resolutions: ['480p', '720p'], durations: [5] },
    pricing: { kind: 'per_second_by_resolution', usd_by_resolution: { '480p': '0.02', '720p': '0.04' } }, timeout_seconds: 900,
    upstream: { model: 'wan-video/wan-2.2-t2v-fast' },
  },
  {
    slug: 'sora-2', name: 'Sora 2', provider: 'openai', type: 'text-to-video', ...common,
    description: 'OpenAI Sora 2 through an OpenAI-compatible videos endpoint: 4, 8 or 12 second clips with sound.',
    capabilities: { ...video, output_modalities: ['video', 'audio'], aspect_ratios: ['16:9', '9:16'], resolutions: ['720p'], durations: [4, 8, 12] },
    pricing: { kind: 'per_second', usd: '0.10' }, timeout_seconds: 1200,
    upstream: { model: 'sora-2', parameters: { duration: 'seconds' } },
  },
  // image-to-video
  {
    slug: 'kling-2.1-standard', name: 'Kling 2.1 Standard (image-to-video)', provider: 'fal', type: 'image-to-video', ...common,
    description: 'Kuaishou Kling 2.1 Standard: animates a still image into a 5 or 10 second 720p clip.',
    capabilities: { ...imageToVideo, aspect_ratios: videoRatios, durations: [5, 10] },
    pricing: { kind: 'per_second', usd: '0.05' }, timeout_seconds: 900,
    upstream: { model: 'fal-ai/kling-video/v2.1/standard/image-to-video' },
  },
  {
    slug: 'ken-burns', name: 'Ken Burns (local, FFmpeg)', provider: 'local', type: 'image-to-video', ...common,
    description: 'Runs offline on this server: FFmpeg pans and zooms across the input image to make an H.264 clip of the requested length and aspect ratio. No generative model.',
    capabilities: { ...imageToVideo, aspect_ratios: videoRatios, durations: [3, 5, 10] },
    pricing: { kind: 'per_second', usd: '0.001' }, timeout_seconds: 300,
    upstream: { model: 'ffmpeg-zoompan' },
  },
  // video-to-video
  {
    slug: 'wan-vace', name: 'Wan 2.1 VACE', provider: 'fal', type: 'video-to-video', ...common,
    description: 'Alibaba Wan VACE: restyles or edits an input video from a prompt (720p, 5 seconds).',
    capabilities: { input_modalities: ['text', 'video'], output_modalities: ['video'], durations: [5] },
    pricing: { kind: 'per_second', usd: '0.08' }, timeout_seconds: 1200,
    upstream: { model: 'fal-ai/wan-vace-14b' },
  },
  {
    slug: 'transcode', name: 'Transcode (local, FFmpeg)', provider: 'local', type: 'video-to-video', ...common,
    description: 'Runs offline on this server: FFmpeg converts the input video to H.264 MP4 at the requested resolution. No generative model.',
    capabilities: { input_modalities: ['video'], output_modalities: ['video'], resolutions: ['480p', '720p', '1080p'] },
    pricing: { kind: 'flat', usd: '0.002' }, timeout_seconds: 600,
    upstream: { model: 'ffmpeg-transcode' },
  },
  // reference-to-video, subject-to-video
  {
    slug: 'vidu-q1-reference', name: 'Vidu Q1 Reference-to-Video', provider: 'fal', type: 'reference-to-video', ...common,
    description: 'Vidu Q1: a 5 second 1080p clip that keeps the people and objects of up to seven reference images.',
    capabilities: { input_modalities: ['text', 'image'], output_modalities: ['video'], aspect_ratios: videoRatios, durations: [5] },
    pricing: { kind: 'flat', usd: '0.40' }, timeout_seconds: 900,
    upstream: { model: 'fal-ai/vidu/q1/reference-to-video', parameters: { images: 'reference_image_urls' } },
  },
  {
    slug: 'phantom-14b', name: 'Phantom 14B (subject-to-video)', provider: 'replicate', type: 'subject-to-video', ...common,
    description: 'ByteDance Phantom: places the subject of the reference images into a new 5 second video.',
    capabilities: { input_modalities: ['text', 'image'], output_modalities: ['video'], resolutions: ['480p', '720p'], durations: [5] },
    pricing: { kind: 'per_second_by_resolution', usd_by_resolution: { '480p': '0.03', '720p': '0.06' } }, timeout_seconds: 1200,
    upstream: { model: 'bytedance/phantom-14b' },
  },
  // upscale
  {
    slug: 'real-esrgan', name: 'Real-ESRGAN', provider: 'replicate', type: 'upscale', ...common,
    description: 'Real-ESRGAN super-resolution: 2× or 4× upscaling that restores detail in photos and renders.',
    capabilities: { input_modalities: ['image'], output_modalities: ['image'], resolutions: ['2x', '4x'] },
    pricing: { kind: 'per_output_by_resolution', usd_by_resolution: { '2x': '0.002', '4x': '0.004' } }, timeout_seconds: 300,
    upstream: { model: 'nightmareai/real-esrgan', parameters: { image_url: 'image', resolution: 'scale' } },
  },
  {
    slug: 'lanczos', name: 'Lanczos upscale (local, sharp)', provider: 'local', type: 'upscale', ...common,
    description: 'Runs offline on this server: resizes the input image 2× or 4× with the Lanczos filter (sharp). Classical resampling, no generative model.',
    capabilities: { input_modalities: ['image'], output_modalities: ['image'], resolutions: ['2x', '4x'] },
    pricing: { kind: 'flat', usd: '0.0005' }, timeout_seconds: 120,
    upstream: { model: 'sharp-lanczos3' },
  },
  // face-swap, lip-sync
  {
    slug: 'face-swap', name: 'Face Swap', provider: 'fal', type: 'face-swap', ...common,
    description: 'Swaps the face from a source image onto the person in a target image.',
    capabilities: { input_modalities: ['image'], output_modalities: ['image'] },
    pricing: { kind: 'per_output', usd: '0.01' }, timeout_seconds: 180,
    upstream: { model: 'fal-ai/face-swap', parameters: { image_url: 'base_image_url', images: 'swap_image_url' } },
  },
  {
    slug: 'sync-lipsync-2', name: 'Sync Lipsync 2.0', provider: 'fal', type: 'lip-sync', ...common,
    description: 'sync. Lipsync 2.0: re-times the lips of a video to a new audio track, up to a few minutes long.',
    capabilities: { input_modalities: ['video', 'audio'], output_modalities: ['video'], durations: [5, 10, 30, 60] },
    pricing: { kind: 'per_second', usd: '0.05' }, timeout_seconds: 1800,
    upstream: { model: 'fal-ai/sync-lipsync/v2' },
  },
  // audio
  {
    slug: 'minimax-music-1.5', name: 'MiniMax Music 1.5', provider: 'fal', type: 'text-to-music', ...common,
    description: 'MiniMax Music 1.5: full songs with vocals and accompaniment from a style prompt and lyrics.',
    capabilities: { input_modalities: ['text'], output_modalities: ['audio'] },
    pricing: { kind: 'flat', usd: '0.035' }, timeout_seconds: 600,
    upstream: { model: 'fal-ai/minimax-music/v1.5', parameters: { prompt: 'lyrics_prompt' } },
  },
  {
    slug: 'elevenlabs-multilingual-v2', name: 'ElevenLabs Multilingual v2', provider: 'fal', type: 'text-to-audio', ...common,
    description: 'ElevenLabs Multilingual v2 text-to-speech: lifelike voices in 29 languages.',
    capabilities: { input_modalities: ['text'], output_modalities: ['audio'] },
    pricing: { kind: 'per_1k_characters', usd: '0.10', assumed_characters: 1000, max_characters: 10000 }, timeout_seconds: 300,
    upstream: { model: 'fal-ai/elevenlabs/tts/multilingual-v2', parameters: { prompt: 'text' } },
  },
  {
    slug: 'minimax-speech-02-hd', name: 'MiniMax Speech-02 HD', provider: 'fal', type: 'text-to-audio', ...common,
    description: 'MiniMax Speech-02 HD text-to-speech: expressive voices and voice settings, high fidelity.',
    capabilities: { input_modalities: ['text'], output_modalities: ['audio'] },
    pricing: { kind: 'per_1k_characters', usd: '0.10', assumed_characters: 1000, max_characters: 5000 }, timeout_seconds: 300,
    upstream: { model: 'fal-ai/minimax/speech-02-hd', parameters: { prompt: 'text' } },
  },
  {
    slug: 'tts-1', name: 'OpenAI TTS-1', provider: 'openai', type: 'text-to-audio', ...common,
    description: 'OpenAI tts-1 speech through any OpenAI-compatible /audio/speech endpoint.',
    capabilities: { input_modalities: ['text'], output_modalities: ['audio'] },
    pricing: { kind: 'per_1k_characters', usd: '0.015', assumed_characters: 1000, max_characters: 4096 }, timeout_seconds: 120,
    upstream: { model: 'tts-1', parameters: { prompt: 'input' } },
  },
  {
    slug: 'espeak', name: 'eSpeak NG speech (local)', provider: 'local', type: 'text-to-audio', ...common,
    description: 'Runs offline on this server: eSpeak NG formant speech synthesis (robotic, intelligible, many languages). Not a neural voice.',
    capabilities: { input_modalities: ['text'], output_modalities: ['audio'] },
    pricing: { kind: 'per_1k_characters', usd: '0.001', assumed_characters: 1000, max_characters: 20000 }, timeout_seconds: 120,
    upstream: { model: 'espeak-ng' },
  },
  {
    slug: 'elevenlabs-audio-isolation', name: 'ElevenLabs Audio Isolation', provider: 'fal', type: 'audio-to-audio', ...common,
    description: 'ElevenLabs voice isolator: removes background noise and music from speech.',
    capabilities: { input_modalities: ['audio'], output_modalities: ['audio'] },
    pricing: { kind: 'per_minute_of_input', usd: '0.10', reserved_minutes: 5, max_minutes: 60 }, timeout_seconds: 600,
    upstream: { model: 'fal-ai/elevenlabs/audio-isolation', parameters: { audio_url: 'audio_url' } },
  },
  {
    slug: 'audio-clean', name: 'Audio clean-up (local, FFmpeg)', provider: 'local', type: 'audio-to-audio', ...common,
    description: 'Runs offline on this server: FFmpeg filters (FFT denoise, then loudness normalisation to -16 LUFS), as MP3. No generative model.',
    capabilities: { input_modalities: ['audio'], output_modalities: ['audio'] },
    pricing: { kind: 'per_minute_of_input', usd: '0.001', reserved_minutes: 10, max_minutes: 120 }, timeout_seconds: 600,
    upstream: { model: 'ffmpeg-loudnorm-afftdn' },
  },
  {
    slug: 'whisper-1', name: 'Whisper', provider: 'openai', type: 'speech-to-text', ...common,
    description: 'OpenAI Whisper transcription through any OpenAI-compatible /audio/transcriptions endpoint.',
    capabilities: { input_modalities: ['audio'], output_modalities: ['text'] },
    pricing: { kind: 'per_minute_of_input', usd: '0.006', reserved_minutes: 10, max_minutes: 120 }, timeout_seconds: 600,
    upstream: { model: 'whisper-1', parameters: { audio_url: 'file' } },
  },
  // 3D
  {
    slug: 'tripo-3d-v2.5', name: 'Tripo3D v2.5 (text-to-3D)', provider: 'fal', type: 'text-to-3d', ...common,
    description: 'Tripo3D v2.5: textured GLB meshes from a prompt; LowPoly for game-ready meshes, Geometry for untextured shape.',
    capabilities: { input_modalities: ['text'], output_modalities: ['3d'], generate_types: ['Normal', 'LowPoly', 'Geometry'] },
    pricing: { kind: 'flat', usd: '0.20' }, surcharges: { generate_type_usd: { LowPoly: '0.10', Geometry: '0.05' } }, timeout_seconds: 900,
    upstream: { model: 'tripo3d/tripo/v2.5/text-to-3d' },
  },
  {
    slug: 'hunyuan3d-2.1', name: 'Hunyuan3D 2.1', provider: 'fal', type: 'image-to-3d', ...common,
    description: 'Tencent Hunyuan3D 2.1: a textured 3D asset from one image; LowPoly and Geometry variants on request.',
    capabilities: { input_modalities: ['image'], output_modalities: ['3d'], generate_types: ['Normal', 'LowPoly', 'Geometry'] },
    pricing: { kind: 'flat', usd: '0.16' }, surcharges: { generate_type_usd: { LowPoly: '0.05', Geometry: '0.02' } }, timeout_seconds: 900,
    upstream: { model: 'fal-ai/hunyuan3d-v21', parameters: { image_url: 'input_image_url' } },
  },
  {
    slug: 'trellis', name: 'TRELLIS', provider: 'fal', type: 'image-to-3d', ...common,
    description: 'Microsoft TRELLIS: fast image-to-3D with structured latents, exported as GLB.',
    capabilities: { input_modalities: ['image'], output_modalities: ['3d'] },
    pricing: { kind: 'flat', usd: '0.02' }, timeout_seconds: 600,
    upstream: { model: 'fal-ai/trellis' },
  },
  // text-to-text
  {
    slug: 'kimi-k2', name: 'Kimi K2 Instruct', provider: 'openai', type: 'text-to-text', ...common,
    description: 'Moonshot Kimi K2 (1T-parameter MoE): strong coding and agentic tool use, 128K context.',
    capabilities: {
      input_modalities: ['text'], output_modalities: ['text'], context_window_tokens: 131072, max_output_tokens: 16384,
      supports_function_calling: true, supports_streaming: true, supports_json_mode: true,
    },
    pricing: { kind: 'per_token', usd_per_million_input: '0.60', usd_per_million_output: '2.50', default_max_tokens: 4096 }, timeout_seconds: 600,
    upstream: { model: 'moonshotai/kimi-k2' },
  },
  {
    slug: 'llama-3.3-70b', name: 'Llama 3.3 70B Instruct', provider: 'openai', type: 'text-to-text', ...common,
    description: 'Meta Llama 3.3 70B Instruct: capable open-weights general assistant, 128K context.',
    capabilities: {
      input_modalities: ['text'], output_modalities: ['text'], context_window_tokens: 131072, max_output_tokens: 8192,
      supports_function_calling: true, supports_streaming: true, supports_json_mode: true,
    },
    pricing: { kind: 'per_token', usd_per_million_input: '0.13', usd_per_million_output: '0.40', default_max_tokens: 2048 }, timeout_seconds: 300,
    upstream: { model: 'meta-llama/llama-3.3-70b-instruct' },
  },
  {
    slug: 'qwen3-235b', name: 'Qwen3 235B A22B', provider: 'openai', type: 'text-to-text', ...common,
    description: 'Alibaba Qwen3 235B MoE with optional thinking mode (enable_thinking), 128K context.',
    capabilities: {
      input_modalities: ['text'], output_modalities: ['text'], context_window_tokens: 131072, max_output_tokens: 32768,
      supports_function_calling: true, supports_streaming: true, supports_json_mode: true,
    },
    pricing: { kind: 'per_token', usd_per_million_input: '0.13', usd_per_million_output: '0.60', default_max_tokens: 4096 }, timeout_seconds: 600,
    upstream: { model: 'qwen/qwen3-235b-a22b' },
  },
];
