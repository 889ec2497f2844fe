// What kind of player previews an output: from the task's type ("text-to-audio" → audio), else the file's extension.
export type OutputKind = 'image' | 'audio' | 'video' | 'text' | 'model' | 'file';

const byExtension: Record<string, OutputKind> = {
  png: 'image',
  jpg: 'image',
  jpeg: 'image',
  webp: 'image',
  gif: 'image',
  mp3: 'audio',
  wav: 'audio',
  ogg: 'audio',
  flac: 'audio',
  m4a: 'audio',
  mp4: 'video',
  webm: 'video',
  mov: 'video',
  txt: 'text',
  md: 'text',
  json: 'text',
  glb: 'model',
  gltf: 'model',
};

const byProduct: Record<string, OutputKind> = {
  image: 'image',
  audio: 'audio',
  video: 'video',
  text: 'text',
  '3d': 'model',
};

export function outputKind(type: string | undefined, url: string): OutputKind {
  const extension = new URL(url, location.href).pathname.split('.').pop()?.toLowerCase() ?? '';
  const fromFile = byExtension[extension];
  if (fromFile) return fromFile;
  const product = type?.split('-to-').pop();
  return (product ? byProduct[product] : undefined) ?? 'file';
}
