import { freePorts } from '../src/infra/ports.ts';

/** A port free a moment ago on 127.0.0.1, outside the ephemeral range; random, so parallel test files differ. */
export async function freePort(): Promise<number> {
  return (await freePorts(1))[0]!;
}
