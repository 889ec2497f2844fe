// The media an upload may be: images, audio and video a generation takes as input, named by the extension the
// `file-type` sniffer gives their bytes. Anything else (HTML, SVG, scripts, archives, unknown bytes) is refused.
export type UploadKind = 'image' | 'audio' | 'video';

interface UploadMedia {
  kind: UploadKind;
  /** The type stored and answered. */
  contentType: string;
  /** The Content-Types a caller may declare for it (the canonical one first). */
  declared: readonly string[];
}

export const uploadMedia: Record<string, UploadMedia> = {
  png: { kind: 'image', contentType: 'image/png', declared: ['image/png'] },
  jpg: { kind: 'image', contentType: 'image/jpeg', declared: ['image/jpeg', 'image/jpg', 'image/pjpeg'] },
  webp: { kind: 'image', contentType: 'image/webp', declared: ['image/webp'] },
  gif: { kind: 'image', contentType: 'image/gif', declared: ['image/gif'] },
  wav: {
    kind: 'audio',
    contentType: 'audio/wav',
    declared: ['audio/wav', 'audio/x-wav', 'audio/wave', 'audio/vnd.wave'],
  },
  mp3: { kind: 'audio', contentType: 'audio/mpeg', declared: ['audio/mpeg', 'audio/mp3'] },
  flac: { kind: 'audio', contentType: 'audio/flac', declared: ['audio/flac', 'audio/x-flac'] },
  ogg: { kind: 'audio', contentType: 'audio/ogg', declared: ['audio/ogg', 'application/ogg'] },
  opus: { kind: 'audio', contentType: 'audio/ogg', declared: ['audio/ogg', 'audio/opus'] },
  m4a: { kind: 'audio', contentType: 'audio/mp4', declared: ['audio/mp4', 'audio/x-m4a', 'audio/m4a'] },
  mp4: { kind: 'video', contentType: 'video/mp4', declared: ['video/mp4'] },
  webm: { kind: 'video', contentType: 'video/webm', declared: ['video/webm'] },
  mov: { kind: 'video', contentType: 'video/quicktime', declared: ['video/quicktime'] },
};

/** Every Content-Type a caller may declare, as the OpenAPI document lists them. */
export const declarableUploadTypes = [...new Set(Object.values(uploadMedia).flatMap((media) => media.declared))];

/** The media kind a declared Content-Type (parameters ignored) claims, or undefined when no upload may be it. */
export function declaredKind(contentType: string | undefined): UploadKind | undefined {
  const type = contentType?.split(';')[0]!.trim().toLowerCase();
  return Object.values(uploadMedia).find((media) => type && media.declared.includes(type))?.kind;
}

/** Whether bytes sniffed as `extension` are what `contentType` declares. */
export function matchesDeclared(extension: string, contentType: string): boolean {
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  return uploadMedia[extension]?.declared.includes(type) ?? false;
}
