#!/usr/bin/env -S node --max-semi-space-size=2
// The toolgauge command. The library is TypeScript: a cached bundle of the CLI (or tsx) loads it without a build step.
import { loadCli } from './cli-bundle.mjs';

const main = await loadCli();
process.exitCode = await main(process.argv.slice(2));
