// Types for the parts of build.mjs the tests use.
export function buildEnvironment(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv;
export function build(options?: { onlyIfStale?: boolean }): void;
export function ensureBuild(): void;
