declare module 'espeak-ng' {
  /** The Emscripten module factory: runs eSpeak NG's command line with `arguments`. */
  export default function ESpeakNg(options: {
    arguments: string[];
    preRun?: ((module: { FS: { writeFile(path: string, data: string): void } }) => void)[];
  }): Promise<unknown>;
}
