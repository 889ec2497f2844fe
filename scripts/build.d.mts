// Types for the parts of build.mjs the tests use.
export function buildEnvironment(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv;
