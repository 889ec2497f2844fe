#!/usr/bin/env node
// genctl: the operators' command line (see `genctl help`).
import { runTypeScript } from '../scripts/run-typescript.mjs';

await runTypeScript('src/cli/genctl.ts');
